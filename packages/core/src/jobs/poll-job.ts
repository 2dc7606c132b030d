/**
 * Types of the one polling loop (implemented by the job engine): what a service client gives it and what
 * it answers. Every service's wait — meeting, videos, flashcards, speech, reading score — is this loop
 * with different parameters; a second loop would be a missing parameter here.
 */
import { ApiError } from '../errors/api-error.js';
import { ConnectionError, ResponseValidationError, TimeoutError } from '../errors/polymodal-error.js';

export const DEFAULT_MAX_CONSECUTIVE_ERRORS = 5;

/** How the pause between reads evolves (the speech service asks for a growing pause). */
export interface PollCadence {
  /** Pause before the first read of a job started in this call (default: none). */
  initialDelayMs?: number;
  /** Each pause is the previous one times this (default 1: a fixed interval). */
  growth?: number;
  /** Upper bound of a grown pause (default: no bound). */
  maxIntervalMs?: number;
  /** Up to this fraction is added at random to each pause, so many waiters do not read in step. */
  jitter?: number;
}

export interface PollJobOptions<T> {
  /** Ledger service name, e.g. `meeting`. */
  service: string;
  /** Platform job id. */
  id: string;
  /**
   * One read of the job. It must not retry by itself past `deadline` (pass `deadline` and `maxRetries: 0`
   * to the chokepoint): transient failures are the loop's to pace and count.
   */
  read: (request: { signal: AbortSignal; deadline: number }) => Promise<T>;
  isDone: (value: T) => boolean;
  /** The status to record in the ledger (e.g. `job.status`). */
  status: (value: T) => string;
  /** Minimum time between two reads of this job, across calls and processes (meeting: 5 s, the spec). */
  intervalMs: number;
  cadence?: PollCadence;
  /** When the loop must have answered (epoch ms); Infinity for none. */
  deadline: number;
  /**
   * A caller that has no value at all (nothing remembered, nothing read yet) may still make its first
   * read up to this time when only the minimum interval stands in the way (at most one interval of
   * waiting, never a Retry-After). A tool passes its call's hard deadline here and `waitSeconds` as
   * `deadline`. Default (and when it is earlier): `deadline`. See `poll-deadlines.ts`.
   */
  firstReadDeadline?: number;
  signal?: AbortSignal | undefined;
  /** Called with every value read (and with a remembered fresh value), in order. */
  onValue?: (value: T) => void | Promise<void>;
  /** Consecutive transient failures tolerated; one more is thrown. Default 5. */
  maxConsecutiveErrors?: number;
}

export interface PollOutcome<T> {
  /** True when the last value says the job stopped. */
  done: boolean;
  /** The newest value known (read now, or remembered from a read less than one interval ago). */
  value: T | undefined;
  /** Reads sent to the platform by this call. */
  reads: number;
  /** Transient failures (429, 5xx, transport) tolerated by this call. */
  transientErrors: number;
  /** When the loop stopped at its deadline after a failure, that failure. */
  lastError?: unknown;
}

/** Transient read failures: retryable API statuses (429, 5xx), transport problems, garbled bodies. */
export function isTransientReadError(error: unknown): boolean {
  if (ApiError.isInstance(error)) return error.retryable;
  return (
    ConnectionError.isInstance(error) ||
    TimeoutError.isInstance(error) ||
    (ResponseValidationError.isInstance(error) && error.retryable)
  );
}
