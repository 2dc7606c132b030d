/**
 * Generic polling loop for asynchronous jobs. It only ever reads: a job is never re-created by polling,
 * so transient read failures are tolerated (up to a limit) instead of surfacing as a lost job.
 */
import {
  ApiError,
  ConnectionError,
  PollingTimeoutError,
  ResponseValidationError,
  TimeoutError,
} from '../errors/index.js';
import { sleep as defaultSleep, type SleepFunction } from '../util/sleep.js';

export const DEFAULT_MAX_CONSECUTIVE_ERRORS = 5;

export interface PollUntilOptions<T> {
  /** One read of the job; receives a signal that aborts with the caller's. */
  retrieve: (signal: AbortSignal) => Promise<T>;
  isDone: (value: T) => boolean;
  intervalMs: number;
  /** Overall deadline; none when omitted. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called with every value read, including the final one. */
  onProgress?: (value: T) => void;
  /** For error messages, e.g. `meeting`. */
  service: string;
  jobId: string;
  /** Status text for the timeout error; defaults to a `status` string property of the value. */
  describeStatus?: (value: T) => string;
  /** Consecutive transient failures tolerated; one more is thrown. Default 5. */
  maxConsecutiveErrors?: number;
  sleep?: SleepFunction;
  now?: () => number;
}

/** Transient read failures: retryable API statuses (429, 5xx), transport problems, garbled bodies. */
function isTransient(error: unknown): boolean {
  if (ApiError.isInstance(error)) return error.retryable;
  return (
    ConnectionError.isInstance(error) ||
    TimeoutError.isInstance(error) ||
    ResponseValidationError.isInstance(error)
  );
}

function defaultDescribe(value: unknown): string | undefined {
  if (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { status?: unknown }).status === 'string'
  ) {
    return (value as { status: string }).status;
  }
  return undefined;
}

/**
 * Reads immediately, then every `intervalMs` until `isDone`. Non-transient errors (401, 404, ...) are
 * thrown at once; the deadline gives a PollingTimeoutError carrying the last status; an abort rethrows
 * the caller's reason, also in the middle of a pause.
 */
export async function pollUntil<T>(options: PollUntilOptions<T>): Promise<T> {
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? Date.now;
  const maxErrors = options.maxConsecutiveErrors ?? DEFAULT_MAX_CONSECUTIVE_ERRORS;
  const describe = options.describeStatus ?? defaultDescribe;
  const signal = options.signal ?? new AbortController().signal;
  const startedAt = now();
  const deadline = options.timeoutMs === undefined ? Number.POSITIVE_INFINITY : startedAt + options.timeoutMs;
  let consecutiveErrors = 0;
  let lastStatus: string | undefined;

  for (;;) {
    signal.throwIfAborted();
    let pauseMs = options.intervalMs;
    try {
      const value = await options.retrieve(signal);
      consecutiveErrors = 0;
      lastStatus = describe(value) ?? lastStatus;
      options.onProgress?.(value);
      if (options.isDone(value)) return value;
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (!isTransient(error)) throw error;
      consecutiveErrors += 1;
      if (consecutiveErrors > maxErrors) throw error;
      // A 429 asks for a longer pause than our interval: honour it.
      if (ApiError.isInstance(error) && error.retryAfterMs !== undefined) {
        pauseMs = Math.max(pauseMs, error.retryAfterMs);
      }
    }
    const remaining = deadline - now();
    if (remaining <= 0) {
      throw new PollingTimeoutError({
        service: options.service,
        jobId: options.jobId,
        ...(lastStatus === undefined ? {} : { lastStatus }),
        waitedMs: now() - startedAt,
      });
    }
    // The last pause is shortened so that one final read happens right at the deadline.
    await sleep(Math.min(pauseMs, remaining), signal);
  }
}
