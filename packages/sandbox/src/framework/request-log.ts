/**
 * The log of requests the sandbox received (HTTP requests and WebSocket upgrades, not the control routes),
 * with wall-clock and sandbox-clock arrival times, so tests can prove client timing ("no poll before the
 * Retry-After elapsed"). It keeps no header and no query string: API keys never reach it.
 */

/** How many requests the log keeps; older ones are dropped first. */
export const REQUEST_LOG_LIMIT = 10_000;

export interface LoggedRequest {
  method: string;
  /** The path without the query string. */
  path: string;
  /** The `METHOD /pattern` key of `counters.requests` (`WS /path` for upgrades, `(unknown route)` when none). */
  route: string;
  /** Wall-clock epoch milliseconds (`Date.now()`) when the request arrived, before any fault delay. */
  at: number;
  /** Sandbox-clock epoch milliseconds when the request arrived. */
  clockAt: number;
  /** The status sent; undefined while unanswered, when no answer is ever sent, and for an accepted upgrade. */
  status: number | undefined;
  /** The user id once the request authenticated. */
  user: string | undefined;
  /**
   * The `Retry-After` (seconds) the answer carried, when it carried one: what a client must wait before its
   * next read of the same thing, so tests can check each read against the last answer before it.
   */
  retryAfterSeconds?: number | undefined;
}

export interface RequestLogFilter {
  /** Compared without regard to case. */
  method?: string;
  /** A regular expression (a string is its source, as in fault rules), tested against the path. */
  path?: string | RegExp;
}

export interface RequestLog {
  /** Appends a request; the returned entry stays live, so status and user can be filled in later. */
  record(entry: Omit<LoggedRequest, 'status' | 'user'>): LoggedRequest;
  /** Copies of the logged requests, oldest first. Throws `SyntaxError` for an invalid path source. */
  list(filter?: RequestLogFilter): LoggedRequest[];
  clear(): void;
}

function toPattern(path: string | RegExp): RegExp {
  // Without the global and sticky flags, `test` keeps no state between entries.
  return typeof path === 'string'
    ? new RegExp(path)
    : new RegExp(path.source, path.flags.replace(/[gy]/g, ''));
}

export function createRequestLog(options: { limit?: number } = {}): RequestLog {
  const limit = options.limit ?? REQUEST_LOG_LIMIT;
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError('the request log limit must be an integer ≥ 1');
  let entries: LoggedRequest[] = [];

  return {
    record(entry) {
      const logged: LoggedRequest = { ...entry, status: undefined, user: undefined };
      entries.push(logged);
      if (entries.length > limit) entries.splice(0, entries.length - limit);
      return logged;
    },
    list(filter = {}) {
      const method = filter.method?.toUpperCase();
      const pattern = filter.path === undefined ? undefined : toPattern(filter.path);
      return entries
        .filter(
          (entry) => (method === undefined || entry.method === method) && (pattern?.test(entry.path) ?? true),
        )
        .map((entry) => ({ ...entry }));
    },
    clear() {
      entries = [];
    },
  };
}
