/**
 * Speech tasks (one part of at most 200 characters each) on the job engine's one polling loop: the first
 * read after the start response's Retry-After (at least 1 s), then a quarter longer per read up to 15 s,
 * jittered, and never sooner than the last Retry-After (start, PENDING, 429) — remembered in this process
 * and in the ledger, so a task resumed after a restart waits for it too. A 429 on a status read is a pause,
 * not a failure: the same taskId is read again after it. A task seen ready gives its slot of the key back.
 */
import { SPEECH_SYNTHESIS_SERVICE, TTS_API_PATH } from '../constants/service-table.js';
import { type SpeechTask, SpeechTask as SpeechTaskSchema } from '../contracts/speech-synthesis.js';
import { ApiError } from '../errors/api-error.js';
import { jobErrorText } from '../errors/job-error-text.js';
import { type CallOptions, requestOptionsOf } from '../http/call-options.js';
import { parseRetryAfter } from '../http/parse-retry-after.js';
import { defineJobResource, type JobWaitOptions } from '../jobs/job-resource.js';
import { checkJobId } from '../video/video-job-client.js';
import { SPEECH_TASK } from '../views/speech-job.js';
import { busyPause } from './requeue-on-busy.js';
import type { SpeechPlatform } from './speech-client-deps.js';
import {
  TTS_MAX_POLL_MS,
  TTS_MIN_POLL_MS,
  TTS_POLL_GROWTH,
  TTS_POLL_JITTER,
  TTS_WAIT_TIMEOUT_MS,
} from './speech-timing.js';

export interface SpeechTaskRead {
  task: SpeechTask;
  retryAfterMs: number | undefined;
}

/** A wait's options, without the first pause: a submission knows it from the start response. */
export type SpeechWaitOptions = Omit<JobWaitOptions<SpeechTask>, 'initialDelayMs'>;

/** A task as its submission returned it. */
export interface SubmittedSpeech {
  taskId: string;
  /** Pause the service asked for before the first status read. */
  retryAfterMs: number | undefined;
  resumed: boolean;
}

export function defineSpeechTasks(deps: SpeechPlatform) {
  const { http, jitter } = deps;
  return defineJobResource<SpeechTask>({
    service: SPEECH_SYNTHESIS_SERVICE,
    kind: SPEECH_TASK,
    engine: deps.engine,
    cadence: { growth: TTS_POLL_GROWTH, maxIntervalMs: TTS_MAX_POLL_MS, jitter: TTS_POLL_JITTER },
    waitTimeoutMs: TTS_WAIT_TIMEOUT_MS,
    locate: (taskId) => ({
      id: taskId,
      path: `${TTS_API_PATH}/audio/speech/${encodeURIComponent(checkJobId(taskId, 'taskId'))}`,
    }),
    fetch: (path, call) =>
      http.request({
        method: 'GET',
        path,
        schema: SpeechTaskSchema,
        idempotent: true,
        retryRateLimited: false,
        ...requestOptionsOf(call),
      }),
    observed: (answer) => {
      const retryAfterMs = parseRetryAfter(answer.headers['retry-after']);
      return retryAfterMs === undefined ? {} : { retryAfterMs: jitter(retryAfterMs) };
    },
    // A 429 is not a failure: the same task is read again after the pause the service asked for (and the
    // 429 may teach the key's limit).
    retryAfter: (error) =>
      ApiError.isInstance(error) && error.status === 429
        ? busyPause(deps, error)
        : ApiError.isInstance(error)
          ? error.retryAfterMs
          : undefined,
    onRead: (task, taskId) => {
      if (task.ready) deps.slots.release(taskId);
    },
    failure: (task) =>
      task.successful === true && task.result?.url
        ? undefined
        : {
            errorMessage: jobErrorText(task.error) ?? (task.successful ? 'no audio URL in the result' : null),
          },
  });
}

export type SpeechTasks = ReturnType<typeof defineSpeechTasks>;

/** One read of a task, with the pause the service asked for before the next one. */
export async function retrieveSpeechTask(
  tasks: SpeechTasks,
  taskId: string,
  call?: CallOptions,
): Promise<SpeechTaskRead> {
  const response = await tasks.read(taskId, call);
  return { task: response.data, retryAfterMs: parseRetryAfter(response.headers['retry-after']) };
}

/** Waits for a task a submission returned: a new one no sooner than its start response's Retry-After. */
export function waitSubmitted(
  tasks: SpeechTasks,
  submitted: SubmittedSpeech,
  extra: SpeechWaitOptions,
): Promise<SpeechTask> {
  return tasks.wait(submitted.taskId, {
    ...extra,
    ...(submitted.resumed ? {} : { initialDelayMs: Math.max(submitted.retryAfterMs ?? 0, TTS_MIN_POLL_MS) }),
  });
}
