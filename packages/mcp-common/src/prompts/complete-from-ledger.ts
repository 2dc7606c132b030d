/**
 * Completion from the caller's own job ledger (the tenant's, over HTTP): job ids and registered voices. The
 * ledger is read, never the platform, so a completion costs nothing and sees only what this caller started.
 * The newest `LEDGER_COMPLETION_WINDOW` entries of the service are looked at: a job older than that is still
 * reached by typing its id in full.
 */
import { CUSTOM_VOICE_SERVICE } from '@polymodal/core/constants';
import type { ToolDeps } from '../tools/tool-deps.js';
import { type CompletionSource, matching } from './completion.js';

/** How many of a service's newest ledger entries a completion looks at. */
export const LEDGER_COMPLETION_WINDOW = 500;

/** The ids of the caller's jobs of `service`, newest first. */
export function jobIds(service: string): CompletionSource<Pick<ToolDeps, 'platform'>> {
  return async ({ value, deps }) => {
    const entries = await deps.platform.ledger.list({ service, limit: LEDGER_COMPLETION_WINDOW });
    return matching(
      entries.flatMap((entry) => (entry.id === null ? [] : [entry.id])),
      value,
    );
  };
}

/**
 * The voices the caller registered (`register_voice`), newest first, each as the `cloneAudio` value that
 * synthesize_speech takes. The platform publishes no list of its own voices, so these are all there is to
 * offer; leaving the argument out speaks in the model's default voice.
 */
export function registeredVoices(): CompletionSource<Pick<ToolDeps, 'platform'>> {
  return async ({ value, deps }) => {
    const entries = await deps.platform.ledger.list({
      service: CUSTOM_VOICE_SERVICE,
      limit: LEDGER_COMPLETION_WINDOW,
    });
    const voices = entries.flatMap((entry) => {
      const cloneAudio = (entry.request?.voice as { clone_audio?: unknown } | undefined)?.clone_audio;
      return typeof cloneAudio === 'string' ? [cloneAudio] : [];
    });
    return matching(new Set(voices), value);
  };
}
