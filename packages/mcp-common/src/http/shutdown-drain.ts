/**
 * Shutting down without dropping work (SIGTERM from a supervisor, `close()`). Once it starts, a request
 * arriving on a connection already open gets 503 with Retry-After, so a load balancer sends it elsewhere;
 * tool calls waiting on a long job are told through the drain signal, which every request scope carries,
 * and answer at once with their handle (done: false, the job id, `next`); requests already under way get
 * a grace time to finish before their connections are cut.
 *
 * Only POST and DELETE count as under way: a GET stream may stay open for ever and would hold the drain
 * for the whole grace time.
 */
import type http from 'node:http';
import { sendJsonRpcError } from './json-responses.js';

/** How long close() lets requests under way finish before cutting their connections. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

export interface ShutdownDrain {
  /** Aborted when shutdown starts: waits on long jobs end and answer with their handle. */
  readonly signal: AbortSignal;
  isShuttingDown(): boolean;
  /** Answers 503 with Retry-After once shutdown has started; returns whether the request may go on. */
  admit(response: http.ServerResponse): boolean;
  /** Counts the request as under way until its response closes. */
  track(response: http.ServerResponse): void;
  /** Refuses new requests from now on and aborts the signal. */
  start(): void;
  /** Resolves when no request is under way, or after `graceMs`, whichever comes first. */
  waitForRequests(graceMs: number): Promise<void>;
}

export function createShutdownDrain(): ShutdownDrain {
  const draining = new AbortController();
  let shuttingDown = false;
  let underWay = 0;
  const idleWaiters = new Set<() => void>();

  return {
    signal: draining.signal,
    isShuttingDown: () => shuttingDown,
    admit(response) {
      if (!shuttingDown) return true;
      response.setHeader('connection', 'close');
      response.setHeader('retry-after', '5');
      sendJsonRpcError(response, 503, -32000, 'the server is shutting down: try again shortly');
      return false;
    },
    track(response) {
      underWay += 1;
      response.once('close', () => {
        underWay -= 1;
        if (underWay === 0) for (const resolve of idleWaiters) resolve();
      });
    },
    start() {
      shuttingDown = true;
      draining.abort(new Error('the server is shutting down'));
    },
    async waitForRequests(graceMs) {
      if (underWay === 0) return;
      let timer: NodeJS.Timeout | undefined;
      let done: (() => void) | undefined;
      await new Promise<void>((resolve) => {
        done = resolve;
        idleWaiters.add(resolve);
        timer = setTimeout(resolve, graceMs);
      });
      clearTimeout(timer);
      if (done) idleWaiters.delete(done);
    },
  };
}
