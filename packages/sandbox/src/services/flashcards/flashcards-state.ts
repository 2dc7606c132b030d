/**
 * What the flashcards service keeps between requests (jobs, idempotency keys, the per-key request window)
 * and the per-key limits read from it: requests per minute, concurrent jobs and daily video minutes.
 */
import { FLASHCARDS_API_PATH } from '@polymodal/core/constants';
import type { ParsedSandboxConfig } from '../../config/sandbox-config.js';
import type { Clock } from '../../framework/clock.js';
import type { CounterRegistry } from '../../framework/counters.js';
import type { RequestContext } from '../../framework/request-context.js';
import type { ServiceContext } from '../../framework/sandbox-service.js';
import { timelinePosition } from '../../media/job-timeline.js';
import { createMediaFiles, type MediaFiles } from '../../media/media-files.js';
import { authenticateMedia, dayOf, type MediaCaller } from '../../media/media-request.js';
import { createSlidingWindow, type SlidingWindow } from '../../media/sliding-window.js';
import type { FlashcardJob } from './flashcard-job.js';
import { flashcardsError } from './flashcards-errors.js';

export type FlashcardLimits = ParsedSandboxConfig['media']['flashcards'];

export interface FlashcardsState {
  clock: Clock;
  counters: CounterRegistry;
  speed: number;
  dataDir: string;
  limits: FlashcardLimits;
  publicMedia: ParsedSandboxConfig['media']['publicMedia'];
  /** Original videos and clips served back to clients. */
  files: MediaFiles;
  rate: SlidingWindow;
  jobs: Map<string, FlashcardJob>;
  /** `<user id>\n<idempotency key>` → job id. */
  idempotency: Map<string, string>;
}

export function createFlashcardsState(context: ServiceContext): FlashcardsState {
  const limits = context.config.media.flashcards;
  return {
    clock: context.clock,
    counters: context.counters,
    speed: context.speed,
    dataDir: context.dataDir,
    limits,
    publicMedia: context.config.media.publicMedia,
    files: createMediaFiles(FLASHCARDS_API_PATH),
    rate: createSlidingWindow({ limit: limits.requestsPerMinute, windowMs: 60_000 }),
    jobs: new Map(),
    idempotency: new Map(),
  };
}

export function isReady(state: FlashcardsState, job: FlashcardJob, now = state.clock.now()): boolean {
  return timelinePosition(job.createdAt, job.phases, now).done;
}

/** Minutes of video the key started today (UTC, sandbox clock), to two decimals. */
export function minutesUsedToday(state: FlashcardsState, key: string): number {
  const today = dayOf(state.clock.now());
  const seconds = [...state.jobs.values()]
    .filter((job) => job.key === key && dayOf(job.createdAt) === today)
    .reduce((sum, job) => sum + job.source.durationSeconds, 0);
  return Math.round((seconds / 60) * 100) / 100;
}

/** The `limits` object of start responses and limit errors. */
export function limitsView(state: FlashcardsState, key: string) {
  const { limits } = state;
  return {
    requests_per_minute: limits.requestsPerMinute,
    concurrent_video_jobs: limits.concurrentVideoJobs,
    daily_video_minutes: limits.dailyVideoMinutes,
    today_video_minutes_used: minutesUsedToday(state, key),
    max_video_duration_seconds: limits.maxVideoDurationSeconds,
    max_upload_bytes: limits.maxUploadBytes,
  };
}

/** Authenticates and counts the request against the key's requests-per-minute limit. */
export function admit(state: FlashcardsState, request: RequestContext): MediaCaller {
  const caller = authenticateMedia(request);
  const decision = state.rate.hit(caller.key, state.clock.now());
  if (!decision.allowed) {
    const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
    throw flashcardsError(
      429,
      'rate_limited',
      `rate limit: at most ${state.limits.requestsPerMinute} requests per minute per key; retry in ${seconds} s`,
      { headers: { 'retry-after': String(seconds) } },
    );
  }
  return caller;
}

export function checkDuration(state: FlashcardsState, seconds: number): void {
  const limit = state.limits.maxVideoDurationSeconds;
  if (seconds > limit) {
    throw flashcardsError(
      413,
      'video_too_long',
      `video too long: ${Math.round(seconds)} s; the limit is ${limit} s`,
    );
  }
}
