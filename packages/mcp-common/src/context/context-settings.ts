/**
 * The numeric settings of a server context, read from the environment and refused with the variable's
 * name (never its value) when they are not whole numbers of at least 1.
 */
import { ConfigError } from '@polymodal/core/errors';
import { classifyAddress } from '@polymodal/core/net';
import { TOOL_CALL_DEADLINE_SECONDS } from '../deadline/tool-deadline.js';
import type { Logger } from '../logging/create-logger.js';

export interface ContextSettings {
  /** The key's concurrentSessions for speech synthesis, when known (otherwise learned from the first 429). */
  concurrentSessions: number | undefined;
  /** How long a speech slot of a replica that died stays taken (PostgreSQL only); undefined: the default. */
  speechLeaseSeconds: number | undefined;
  /** Seconds one tool call may take before it answers with what it has. */
  toolDeadlineSeconds: number;
  /** The shortest time between two reads of a job, for tests against a sandbox on this machine only. */
  pollIntervalMs: number | undefined;
}

export function readContextSettings(env: NodeJS.ProcessEnv, baseUrl: string, log: Logger): ContextSettings {
  const concurrentSessions = parsePositiveInteger(
    env.POLYMODAL_TTS_CONCURRENT_SESSIONS,
    'POLYMODAL_TTS_CONCURRENT_SESSIONS',
    "the key policy's concurrentSessions",
  );
  const speechLeaseSeconds = parsePositiveInteger(
    env.POLYMODAL_SPEECH_LEASE_SECONDS,
    'POLYMODAL_SPEECH_LEASE_SECONDS',
    'seconds a speech slot of a replica that died stays taken, with POLYMODAL_DATABASE_URL',
  );
  const toolDeadlineSeconds =
    parsePositiveInteger(
      env.POLYMODAL_TOOL_DEADLINE_SECONDS,
      'POLYMODAL_TOOL_DEADLINE_SECONDS',
      'seconds one tool call may take (hosts cut calls off at about 60 s)',
    ) ?? TOOL_CALL_DEADLINE_SECONDS;
  let pollIntervalMs = parsePositiveInteger(
    env.POLYMODAL_POLL_INTERVAL_MS,
    'POLYMODAL_POLL_INTERVAL_MS',
    'milliseconds between two reads of a job (tests against the sandbox only)',
  );
  if (pollIntervalMs !== undefined && !isLoopbackUrl(baseUrl)) {
    log.warning(
      'POLYMODAL_POLL_INTERVAL_MS is ignored: it is for tests against a sandbox on this machine, and the platform asks for its own polling intervals.',
    );
    pollIntervalMs = undefined;
  }
  return { concurrentSessions, speechLeaseSeconds, toolDeadlineSeconds, pollIntervalMs };
}

function parsePositiveInteger(
  value: string | undefined,
  variable: string,
  meaning: string,
): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) {
    throw new ConfigError(variable, `${variable} must be a whole number of at least 1 (${meaning}).`);
  }
  return parsed;
}

function isLoopbackUrl(baseUrl: string): boolean {
  const host = new URL(baseUrl).hostname;
  return host === 'localhost' || classifyAddress(host)?.range === 'loopback';
}
