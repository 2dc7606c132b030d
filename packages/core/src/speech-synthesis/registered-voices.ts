/**
 * The custom voices this installation registered, as `custom-voice` entries of the job ledger: the entry's
 * fingerprint is the recording and the registration's fields, its `request.voice` the platform's answer. A
 * voice is no job: one POST registers it at once, with nothing to poll, resume or claim, so it is written
 * here once it exists rather than started through the job engine. Failing to write it only costs a second
 * registration of the same recording later; it never fails the registration.
 */
import { CUSTOM_VOICE_SERVICE } from '../constants/service-table.js';
import type { CustomVoiceCreated } from '../contracts/speech-synthesis.js';
import type { JobEngine } from '../jobs/job-engine.js';
import type { LedgerEntry } from '../ledger/create-job-ledger.js';

/** The voice registered before under this fingerprint, if the ledger holds it. */
export async function findRegisteredVoice(
  engine: JobEngine,
  voiceFingerprint: string,
): Promise<CustomVoiceCreated | undefined> {
  const known = await engine.ledger?.findByFingerprint(CUSTOM_VOICE_SERVICE, voiceFingerprint);
  return known?.id && known.request?.voice ? (known.request.voice as CustomVoiceCreated) : undefined;
}

/** Records a registered voice (or replaces the record of the same recording); a failure is only logged. */
export async function recordRegisteredVoice(
  engine: JobEngine,
  voiceFingerprint: string,
  registration: { voice: CustomVoiceCreated; title: string | null; source: Record<string, unknown> },
): Promise<void> {
  const { ledger } = engine;
  const recorded = {
    id: registration.voice.voice.id,
    lastStatus: 'REGISTERED',
    title: registration.title,
    request: { ...registration.source, voice: registration.voice },
  };
  try {
    const inserted = await ledger?.insert({
      service: CUSTOM_VOICE_SERVICE,
      fingerprint: voiceFingerprint,
      ...recorded,
    });
    if (inserted && !inserted.inserted)
      await ledger?.update(CUSTOM_VOICE_SERVICE, voiceFingerprint, recorded);
  } catch (error) {
    // The voice exists on the platform; failing to note it here only costs a second registration later.
    engine.warn(
      `voice ${registration.voice.voice.id} could not be recorded in the job ledger: ${String(error)}`,
    );
  }
}

/** Voices this installation registered, newest first. */
export async function listRegisteredVoices(engine: JobEngine): Promise<LedgerEntry[]> {
  return engine.ledger ? engine.ledger.list({ service: CUSTOM_VOICE_SERVICE }) : [];
}
