/**
 * Per-call options, the same on every public method of every client (as users of well-kept SDKs expect):
 *
 * - `signal` aborts the call.
 * - `timeout` (ms) bounds the WHOLE call: every attempt, every retry and every pause before one (a
 *   Retry-After included), and for a method that waits on a job, the whole wait. When it runs out the call
 *   rejects with a `TimeoutError` whose `deadlineReached` is true, or, while waiting on a job, with the
 *   `PollingTimeoutError` that names the job (it goes on running and stays recorded, so the same call later
 *   resumes it). The client-level `timeoutMs` still bounds each attempt.
 *   This is the conservative reading of "timeout": no call outlives it, whatever the platform answers.
 * - `maxRetries` replaces the client's retry count for this call (0: a single attempt). It never makes a
 *   request repeat what the retry policy forbids: a POST that may have reached the platform is still not
 *   sent again. For a method that waits on a job it is how many consecutive failed status reads are
 *   tolerated (default 5).
 *
 * Bad values are refused before anything is sent.
 */
import { TimeoutError, ValidationError } from '../errors/polymodal-error.js';

export interface CallOptions {
  signal?: AbortSignal | undefined;
  /** Milliseconds the whole call may take, retries and waiting included. */
  timeout?: number | undefined;
  /** Retries after the first attempt, for this call only (0: one attempt). */
  maxRetries?: number | undefined;
}

/** Checks a call's options; throws a ValidationError naming the option before any request. */
export function checkCallOptions(call: CallOptions): void {
  if (call.timeout !== undefined && !(Number.isFinite(call.timeout) && call.timeout > 0)) {
    throw new ValidationError(
      `timeout: must be a number of milliseconds above 0, got ${String(call.timeout)}.`,
      [{ path: 'timeout', message: 'must be above 0' }],
    );
  }
  if (call.maxRetries !== undefined && !(Number.isInteger(call.maxRetries) && call.maxRetries >= 0)) {
    throw new ValidationError(
      `maxRetries: must be a whole number of 0 or more, got ${String(call.maxRetries)}.`,
      [{ path: 'maxRetries', message: 'must be a whole number ≥ 0' }],
    );
  }
}

/**
 * When the call must be over (epoch ms): `now + timeout`, or an explicit `deadline`, whichever comes first;
 * undefined when neither is given. Checks the options first.
 */
export function callDeadline(
  call: CallOptions & { deadline?: number | undefined },
  now: number = Date.now(),
): number | undefined {
  checkCallOptions(call);
  const fromTimeout = call.timeout === undefined ? undefined : now + call.timeout;
  if (fromTimeout === undefined) return call.deadline;
  return call.deadline === undefined ? fromTimeout : Math.min(call.deadline, fromTimeout);
}

/** What the chokepoint takes for one request of a call: the signal, the call's deadline, its retry count. */
export function requestOptionsOf(call: CallOptions & { deadline?: number | undefined }): {
  signal?: AbortSignal | undefined;
  deadline?: number | undefined;
  maxRetries?: number | undefined;
} {
  return { signal: call.signal, deadline: callDeadline(call), maxRetries: call.maxRetries };
}

/**
 * `call` with its deadline fixed now: a method that makes several requests (or waits) calls this once at
 * its start, so that `timeout` bounds the whole method rather than each request.
 */
export function startCall<T extends CallOptions & { deadline?: number | undefined }>(
  call: T,
): T & { deadline: number | undefined } {
  return { ...call, deadline: callDeadline(call), timeout: undefined };
}

/**
 * What the polling loop takes from a poll's options: the earlier of its `deadline` and `timeout`, the signal,
 * and `maxRetries` as the number of failed reads in a row it tolerates.
 */
export function pollCallOptions(call: CallOptions & { deadline: number }): {
  deadline: number;
  signal: AbortSignal | undefined;
  maxConsecutiveErrors?: number;
} {
  return {
    deadline: callDeadline(call) ?? call.deadline,
    signal: call.signal,
    ...(call.maxRetries === undefined ? {} : { maxConsecutiveErrors: call.maxRetries }),
  };
}

/**
 * How long a wait may last (ms): its own `timeoutMs` (else `fallbackMs`), shortened by `timeout` or by an
 * epoch-ms `deadline` that comes first.
 */
export function waitTimeoutMs(
  call: CallOptions & { timeoutMs?: number | undefined; deadline?: number | undefined },
  fallbackMs: number,
): number {
  const now = Date.now();
  const deadline = callDeadline(call, now);
  const own = call.timeoutMs ?? fallbackMs;
  return deadline === undefined ? own : Math.max(0, Math.min(own, deadline - now));
}

/**
 * Runs `work` within the call's deadline, for methods whose waits are not all requests (a free slot, a
 * pause the platform asked for, parts already admitted). `work` gets a signal that also aborts at the
 * deadline, so it sends nothing new after it; and the call answers then, with a `TimeoutError`
 * (`deadlineReached`) saying what `what` could not finish, even if some of `work` goes on: what it already
 * started is recorded in the ledger, so the same call later resumes it. The caller's own abort stays as it is.
 */
export async function withinDeadline<T>(
  call: { signal?: AbortSignal | undefined; deadline?: number | undefined },
  what: string,
  work: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  if (call.deadline === undefined) return work(call.signal);
  const expiry = new AbortController();
  const signal = call.signal ? AbortSignal.any([call.signal, expiry.signal]) : expiry.signal;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => {
        expiry.abort();
        reject(new TimeoutError(`${what} before the call's deadline.`, 0, { deadlineReached: true }));
      },
      Math.max(0, call.deadline ?? 0) - Date.now(),
    );
  });
  const working = work(signal);
  // What goes on after the deadline is recorded by the work itself; its late failure has no caller left.
  working.catch(() => undefined);
  try {
    return await Promise.race([working, timedOut]);
  } catch (error) {
    if (expiry.signal.aborted && !call.signal?.aborted && !TimeoutError.isInstance(error)) {
      throw new TimeoutError(`${what} before the call's deadline.`, 0, { deadlineReached: true });
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
