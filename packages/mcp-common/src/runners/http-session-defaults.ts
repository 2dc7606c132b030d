/**
 * Defaults of legacy HTTP sessions, apart from the HTTP server itself: the command line reads them
 * (`readHttpSettings`) before choosing a transport, and a bin started over stdio must not load the server.
 */

export const DEFAULT_MAX_SESSIONS = 1_000;
/** A tenant's share of the global cap: ten tenants at their cap fill it. */
export const DEFAULT_MAX_SESSIONS_PER_TENANT = 100;
export const DEFAULT_SESSION_IDLE_MS = 30 * 60 * 1000;

export interface HttpSessionOptions {
  /** Most sessions open at once (default 1,000); one more closes the least recently active idle one. */
  maxSessions?: number;
  /**
   * Most sessions one tenant may hold at once (default 100; authenticated tenants only, since the open mode
   * has one caller). One more closes that tenant's own least recently active idle session, never another's.
   */
  maxSessionsPerTenant?: number;
  /** A session without a request for this long is closed and forgotten (default 30 min). */
  idleMs?: number;
}
