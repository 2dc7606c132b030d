/**
 * How many legacy (2025-11-25) sessions may be open, and for how long idle: the `sessions` option of
 * `runHttpServer` with its defaults filled in. Checked before anything is built, so that a limit that
 * cannot work stops the start. Undefined when the option is off: the server is then stateless.
 */
import {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_TENANT,
  DEFAULT_SESSION_IDLE_MS,
  type HttpSessionOptions,
} from '../runners/http-session-defaults.js';

export type SessionLimits = Required<HttpSessionOptions>;

export function readSessionLimits(
  sessions: boolean | HttpSessionOptions | undefined,
): SessionLimits | undefined {
  if (sessions === undefined || sessions === false) return undefined;
  const given = typeof sessions === 'object' ? sessions : {};
  const maxSessions = given.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const maxSessionsPerTenant = given.maxSessionsPerTenant ?? DEFAULT_MAX_SESSIONS_PER_TENANT;
  const idleMs = given.idleMs ?? DEFAULT_SESSION_IDLE_MS;
  if (!Number.isInteger(maxSessions) || maxSessions < 1) throw new Error('maxSessions must be at least 1');
  if (!Number.isInteger(maxSessionsPerTenant) || maxSessionsPerTenant < 1) {
    throw new Error('maxSessionsPerTenant must be at least 1');
  }
  if (!(idleMs > 0)) throw new Error('idleMs must be more than 0');
  return { maxSessions, maxSessionsPerTenant, idleMs };
}
