/**
 * Starting a flashcards job once its source is known: an idempotent repeat answers the active job, the
 * key's concurrent-job and daily-minutes limits are enforced, then the job is planned and recorded.
 */
import { randomBytes } from 'node:crypto';
import { FLASHCARDS_API_PATH } from '@polymodal/core/constants';
import { json, type SandboxResponse } from '../../framework/sandbox-response.js';
import { type MediaCaller, recordJob } from '../../media/media-request.js';
import { type FlashcardJob, outcomeOf, planStages, type VideoSource } from './flashcard-job.js';
import type { FlashcardOptions } from './flashcard-options.js';
import { flashcardsError } from './flashcards-errors.js';
import { type FlashcardsState, isReady, limitsView, minutesUsedToday } from './flashcards-state.js';

export const FLASHCARDS_COUNTER = 'flashcardJobs';

export interface StartJobOptions {
  caller: MediaCaller;
  options: FlashcardOptions;
  source: VideoSource;
}

function startResponse(state: FlashcardsState, job: FlashcardJob, status: number): SandboxResponse {
  return json(status, {
    success: true,
    job_id: job.id,
    status: isReady(state, job) ? job.outcome : 'queued',
    statusPath: `${FLASHCARDS_API_PATH}/jobs/${job.id}`,
    limits: limitsView(state, job.key),
  });
}

const idempotencyKeyOf = (caller: MediaCaller, key: string) => `${caller.user.id}\n${key}`;

/** The active job of the same idempotency key, if any (a different source under that key is a 409). */
function findActive(state: FlashcardsState, start: StartJobOptions): FlashcardJob | undefined {
  const { caller, options, source } = start;
  if (!options.idempotencyKey) return undefined;
  const job = state.jobs.get(state.idempotency.get(idempotencyKeyOf(caller, options.idempotencyKey)) ?? '');
  if (!job || isReady(state, job)) return undefined;
  if (
    job.source.fingerprint !== source.fingerprint ||
    job.options.learningDirection !== options.learningDirection
  ) {
    throw flashcardsError(
      409,
      'idempotency_conflict',
      'idempotency_key is already used by an active job for another video or direction; use a new key',
    );
  }
  return job;
}

/** Refuses a start over the key's concurrent-job or daily-minutes limit. */
function checkKeyLimits(state: FlashcardsState, caller: MediaCaller, source: VideoSource, now: number): void {
  const { limits } = state;
  const active = [...state.jobs.values()].filter(
    (job) => job.key === caller.key && !isReady(state, job, now),
  );
  if (active.length >= limits.concurrentVideoJobs) {
    throw flashcardsError(
      429,
      'concurrent_limit',
      `too many active video jobs for this key: ${active.length} of ${limits.concurrentVideoJobs}; wait until one is ready`,
      { headers: { 'retry-after': '5' }, extra: { limits: limitsView(state, caller.key) } },
    );
  }
  const used = minutesUsedToday(state, caller.key);
  if (used + source.durationSeconds / 60 > limits.dailyVideoMinutes) {
    throw flashcardsError(
      429,
      'daily_minutes_exceeded',
      `daily video minutes exceeded: ${used} of ${limits.dailyVideoMinutes} minutes used today and this video is ${Math.ceil(source.durationSeconds / 60)} min; try again tomorrow (UTC)`,
      { extra: { limits: limitsView(state, caller.key) } },
    );
  }
}

/** 202 with a new job, or 200 with the active job of the same idempotency key. */
export function startJob(state: FlashcardsState, start: StartJobOptions): SandboxResponse {
  const existing = findActive(state, start);
  if (existing) return startResponse(state, existing, 200);
  const { caller, options, source } = start;
  const now = state.clock.now();
  checkKeyLimits(state, caller, source, now);
  const outcome = outcomeOf(source);
  const job: FlashcardJob = {
    id: `vf_${randomBytes(12).toString('hex')}`,
    userId: caller.user.id,
    key: caller.key,
    createdAt: now,
    options,
    source,
    phases: planStages({ options, source, outcome, speed: state.speed }),
    outcome,
    material: undefined,
    urls: undefined,
  };
  state.jobs.set(job.id, job);
  if (options.idempotencyKey) state.idempotency.set(idempotencyKeyOf(caller, options.idempotencyKey), job.id);
  recordJob(state.counters, caller.user, FLASHCARDS_COUNTER, Math.ceil(source.durationSeconds / 60));
  return startResponse(state, job, 202);
}
