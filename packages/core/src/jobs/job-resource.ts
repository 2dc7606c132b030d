/**
 * One job resource: a service declares its job once — where a job is read and how (one GET, recorded by
 * `engine.observe`), its kind (when it is done, its status, progress, outcome and error), and what `wait`
 * may not return — and gets `read`/`retrieve`, `poll`, `wait`, `currentStatus` and `view` from here, on the
 * job engine's one loop at the service table's interval. Meeting, both video services, flashcards, reading
 * score and speech tasks are this one resource; a second `poll` or `wait` would be a missing parameter.
 */

import { serviceOf } from '../constants/service-table.js';
import { NotFoundError } from '../errors/api-error.js';
import { JobFailedError, PollingTimeoutError } from '../errors/polymodal-error.js';
import { type CallOptions, pollCallOptions, waitTimeoutMs } from '../http/call-options.js';
import type { HttpResponse } from '../http/http-client.js';
import type { DefinedJobKind } from '../views/job-view.js';
import type { JobEngine, ObservedRead } from './job-engine.js';
import type { PollCadence, PollOutcome } from './poll-job.js';

/** `timeout` ends the waiting earlier than `deadline` when it comes first; `maxRetries` is failed reads in a row. */
export interface JobPollOptions<T> extends CallOptions {
  /** When the waiting ends (epoch ms); the answer is then `done: false` with the newest job known. */
  deadline: number;
  /** With nothing to show yet, the first read may still happen until this time (see the job engine). */
  firstReadDeadline?: number;
  /** Pause before the first read of a job this call just started (at least one interval): its Retry-After. */
  initialDelayMs?: number;
  onProgress?: (job: T) => void | Promise<void>;
  /** When the wait is over (default: the job stopped). An action's caller waits for the job to move. */
  until?: (job: T) => boolean;
}

/** `timeout` and `timeoutMs` both bound the whole wait (the earlier wins); `maxRetries` is failed reads in a row. */
export interface JobWaitOptions<T> extends CallOptions {
  /** Default: the service's (meeting 4 h, video 30 min, flashcards 1 h, reading score and speech 10 min). */
  timeoutMs?: number;
  /** As in `poll`. */
  initialDelayMs?: number;
  onProgress?: (job: T) => void;
}

/** One read's options: the call's signal, deadline and retry count. */
export type JobReadOptions = CallOptions & { deadline?: number | undefined };
/** A job's id in the ledger, and where its status is read. */
export type JobLocation = { id: string; path: string };

export interface JobResourceOptions<T> {
  /** The service's ledger name; the interval between reads is the service table's. */
  service: string;
  kind: DefinedJobKind<T>;
  engine: JobEngine;
  /** A shorter interval than the table's, against the sandbox only (tests). */
  intervalMs?: number | undefined;
  /** How the pause grows from read to read (the speech service asks for a growing pause). */
  cadence?: Omit<PollCadence, 'initialDelayMs'>;
  /** How long `wait` waits when the call does not say. */
  waitTimeoutMs: number;
  /** Where the job of an id is read; throws ValidationError (nothing sent) for an id that cannot be one. */
  locate(id: string): JobLocation | Promise<JobLocation>;
  /** One GET of the job at `path`, whose `data` is the job. */
  fetch(path: string, call: JobReadOptions): Promise<HttpResponse<T>>;
  /** What a read records besides the status (a title, credits), and a pause it asks for beyond the interval. */
  observed?(response: HttpResponse<T>, id: string): Omit<ObservedRead, 'status' | 'body'>;
  /** The pause a failed read asks for (default: its Retry-After). */
  retryAfter?(error: unknown): number | undefined;
  /** Told of every job read, once it is recorded. */
  onRead?(job: T, id: string): void;
  /**
   * Why a stopped job is not a result: `wait` then throws JobFailedError with this reason (and `jobId`, when
   * the job names itself otherwise). Without it, `wait` returns every stopped job (the caller reads its status).
   */
  failure?(job: T): { errorMessage: string | null; jobId?: string } | undefined;
}

/** A resource as its functions need it: the declaration, and the interval between reads. */
interface Resource<T> extends JobResourceOptions<T> {
  intervalMs: number;
}

export function defineJobResource<T>(options: JobResourceOptions<T>) {
  const intervalMs = options.intervalMs ?? serviceOf(options.service)?.pollIntervalMs;
  if (intervalMs === undefined) {
    throw new TypeError(`${options.service} has no poll interval in the service table.`);
  }
  const resource: Resource<T> = { ...options, intervalMs };
  /** One read of the job, recorded (its status, and a pause it asks for) for every later read, anywhere. */
  const read = async (id: string, call: JobReadOptions = {}) =>
    readAt(resource, await options.locate(id), call);
  return {
    read,
    retrieve: async (id: string, call?: JobReadOptions): Promise<T> => (await read(id, call)).data,
    poll: (id: string, call: JobPollOptions<T>) => poll(resource, id, call),
    wait: (id: string, call: JobWaitOptions<T> = {}) => wait(resource, id, call),
    currentStatus: (id: string, request: { signal: AbortSignal; deadline: number }) =>
      currentStatus(resource, id, request),
    view: options.kind.view,
  };
}

async function readAt<T>(
  resource: Resource<T>,
  location: JobLocation,
  call: JobReadOptions,
): Promise<HttpResponse<T>> {
  const { service, kind, engine } = resource;
  const response = await engine.observe({
    service,
    id: location.id,
    read: () => resource.fetch(location.path, call),
    seen: (answer) => ({
      status: kind.status(answer.data),
      body: answer.data,
      ...resource.observed?.(answer, location.id),
    }),
    retryAfter: resource.retryAfter,
  });
  resource.onRead?.(response.data, location.id);
  return response;
}

/** Waits on the job until it stops (or `until`) or `deadline` comes, never reading faster than it may. */
async function poll<T>(resource: Resource<T>, id: string, call: JobPollOptions<T>): Promise<PollOutcome<T>> {
  const { service, kind, engine, intervalMs } = resource;
  const location = await resource.locate(id);
  const { initialDelayMs } = call;
  return engine.poll<T>({
    service,
    id: location.id,
    // One attempt per read: the loop paces and counts transient failures at the interval.
    read: async ({ signal, deadline }) =>
      (await readAt(resource, location, { signal, deadline, maxRetries: 0 })).data,
    isDone: call.until ?? kind.isDone,
    status: kind.status,
    intervalMs,
    cadence: {
      ...resource.cadence,
      ...(initialDelayMs === undefined ? {} : { initialDelayMs: Math.max(initialDelayMs, intervalMs) }),
    },
    ...pollCallOptions(call),
    ...(call.firstReadDeadline === undefined ? {} : { firstReadDeadline: call.firstReadDeadline }),
    ...(call.onProgress ? { onValue: call.onProgress } : {}),
  });
}

/** Waits until the job stops; PollingTimeoutError after `timeoutMs` (the job keeps running). */
async function wait<T>(resource: Resource<T>, id: string, call: JobWaitOptions<T>): Promise<T> {
  const { service, kind } = resource;
  const { timeoutMs: _timeoutMs, timeout: _timeout, ...pollCall } = call;
  const startedAt = Date.now();
  const outcome = await poll(resource, id, {
    ...pollCall,
    deadline: startedAt + waitTimeoutMs(call, resource.waitTimeoutMs),
  });
  const job = outcome.value;
  if (!outcome.done || job === undefined) {
    throw new PollingTimeoutError({
      service,
      jobId: id,
      ...(job === undefined ? {} : { lastStatus: kind.status(job) }),
      waitedMs: Date.now() - startedAt,
    });
  }
  const failed = resource.failure?.(job);
  if (failed) {
    const { jobId = id, errorMessage } = failed;
    throw new JobFailedError({ service, jobId, status: kind.status(job), errorMessage });
  }
  return job;
}

/**
 * The live status of a recorded job, for `StartJobOptions.current`: one poll that may wait out at most one
 * interval. Undefined when the service answers 404 (the job is gone); a platform that cannot answer now
 * throws, which leaves the recorded job the answer.
 */
async function currentStatus<T>(
  resource: Resource<T>,
  id: string,
  request: { signal: AbortSignal; deadline: number },
): Promise<string | undefined> {
  const now = Date.now();
  try {
    // No time to wait for a change, but a first read may wait out one interval and take until the deadline.
    const outcome = await poll(resource, id, {
      deadline: now,
      firstReadDeadline: request.deadline,
      signal: request.signal,
    });
    if (outcome.value !== undefined) return resource.kind.status(outcome.value);
    throw (
      outcome.lastError ??
      new PollingTimeoutError({ service: resource.service, jobId: id, waitedMs: Date.now() - now })
    );
  } catch (error) {
    if (NotFoundError.isInstance(error)) return undefined;
    throw error;
  }
}
