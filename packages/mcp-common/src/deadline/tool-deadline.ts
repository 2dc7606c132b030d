/**
 * The one deadline of an MCP tool call. Hosts cut a call off at about 60 s whatever the server does
 * (PITFALLS: MCP SDK 1.x), so a tool that runs longer loses everything it had. Each tool creates one
 * deadline when the call starts and hands it to every wait and request inside the call: `at` to the core
 * clients (which then stop in time and return what they have), `signal` to anything that only takes a
 * signal. 50 s leaves the host's last 10 s for the answer to travel and for a bounded clean-up.
 *
 * A server that shuts down (SIGTERM over HTTP) brings every deadline forward to now: the call answers with
 * what it has (a job's handle) instead of being cut off with the connection (see `drainSignal`).
 */
import { TimeoutError } from '@polymodal/core/errors';
import { currentRequestScope } from '../scope/request-scope.js';

/** Seconds a tool call may use before it must answer with what it has. */
export const TOOL_CALL_DEADLINE_SECONDS = 50;

export interface ToolDeadline {
  /** When the call must be over (epoch ms). */
  readonly at: number;
  /** The budget it was created with, in seconds, for messages ("within 50 s"). */
  readonly seconds: number;
  /**
   * Aborts at the deadline (reason: a core `TimeoutError` with `deadlineReached`) or as soon as the
   * caller cancels (reason: the caller's own).
   */
  readonly signal: AbortSignal;
  /** Milliseconds left, never negative. */
  remainingMs(): number;
  /** Whether the deadline has come. */
  expired(): boolean;
  /** Stops the timer and detaches from the caller's signal; call it when the tool call ends. */
  dispose(): void;
}

/** What a server passes its tools so that tests (and hosts with longer limits) can change the budget. */
export interface ToolDeadlineDeps {
  /** Seconds per tool call (default `TOOL_CALL_DEADLINE_SECONDS`). */
  toolDeadlineSeconds?: number | undefined;
}

/**
 * Starts the deadline of one tool call. `extraSignal` is the MCP request's signal (the client's
 * cancellation); `seconds` the budget.
 */
export function createToolDeadline(
  extraSignal: AbortSignal,
  seconds: number = TOOL_CALL_DEADLINE_SECONDS,
): ToolDeadline {
  if (!(Number.isFinite(seconds) && seconds > 0)) {
    throw new RangeError(`A tool deadline needs a positive number of seconds, not ${seconds}.`);
  }
  const at = Date.now() + seconds * 1000;
  const controller = new AbortController();
  const draining = drainSignal();
  // Linked by hand rather than with AbortSignal.any, so that nothing stays attached to the request's
  // signal once the call is over.
  const onCallerAbort = () => controller.abort(extraSignal.reason);
  const timer = setTimeout(() => {
    controller.abort(
      new TimeoutError(
        `The tool call used its ${seconds} s; it stops here so that the host's time limit does not cut it off.`,
        seconds * 1000,
        { deadlineReached: true },
      ),
    );
  }, seconds * 1000);
  if (extraSignal.aborted) onCallerAbort();
  else extraSignal.addEventListener('abort', onCallerAbort, { once: true });
  const onDrain = () =>
    controller.abort(
      new TimeoutError(
        'The server is shutting down; the call stops here and answers with what it has.',
        Math.max(0, at - Date.now()),
        { deadlineReached: true },
      ),
    );
  if (draining?.aborted) onDrain();
  else draining?.addEventListener('abort', onDrain, { once: true });
  const dispose = () => {
    clearTimeout(timer);
    extraSignal.removeEventListener('abort', onCallerAbort);
    draining?.removeEventListener('abort', onDrain);
  };
  controller.signal.addEventListener('abort', dispose, { once: true });
  return {
    at,
    seconds,
    signal: controller.signal,
    remainingMs: () => (draining?.aborted ? 0 : Math.max(0, at - Date.now())),
    expired: () => draining?.aborted === true || Date.now() >= at,
    dispose,
  };
}

/**
 * Aborts when the server handling this call starts shutting down (undefined outside an HTTP request: a stdio
 * server ends when its client closes stdin, and has nothing to drain).
 */
export function drainSignal(): AbortSignal | undefined {
  return currentRequestScope()?.draining;
}
