/**
 * Observing a read a client makes itself (one GET of a job): the read is counted for the events, and what
 * it saw is recorded — its status and fields, and the pause it asks for: the response's Retry-After on
 * success, or the pause a refusal asks for. Every client's status read goes through here, so the interval
 * and the job's Retry-After floor hold for every later read of the job, in any call or process.
 */
import { ApiError } from '../errors/api-error.js';
import { parseRetryAfter } from '../http/parse-retry-after.js';
import type { PolymodalEvents } from '../telemetry/polymodal-events.js';
import type { ObservedRead, ObservedResponse, ObserveReadOptions } from './job-engine.js';
import type { JobRef } from './read-schedule.js';

export interface ObserveParts {
  events: Required<PolymodalEvents>;
  noteRead: (job: JobRef, read: ObservedRead) => Promise<void>;
  now: () => number;
}

export async function observeRead<R extends ObservedResponse>(
  parts: ObserveParts,
  options: ObserveReadOptions<R>,
): Promise<R> {
  const { events, noteRead, now } = parts;
  const { service, id } = options;
  let value: R;
  try {
    value = await options.read();
    events.jobRead({ service });
  } catch (error) {
    // A read the platform answered (a 429, a 5xx) was sent all the same; one that never left was not.
    if (ApiError.isInstance(error)) events.jobRead({ service });
    const pauseMs = options.retryAfter
      ? options.retryAfter(error)
      : ApiError.isInstance(error)
        ? error.retryAfterMs
        : undefined;
    if (pauseMs !== undefined) await noteRead({ service, id }, { retryAfterMs: pauseMs });
    throw error;
  }
  const observed = options.seen(value);
  // The platform's Retry-After on a successful read bounds the next one like an interval; a client's own
  // pause (jittered, or a cadence) may only lengthen it.
  const asked = parseRetryAfter(value.headers?.['retry-after'], now());
  const pauseMs = Math.max(observed.retryAfterMs ?? 0, asked ?? 0);
  await noteRead({ service, id }, { ...observed, ...(pauseMs > 0 ? { retryAfterMs: pauseMs } : {}) });
  return value;
}
