/**
 * A flashcards job's readings (see job-view.ts): done once `ready` or in a terminal state, a success
 * only with a result, and the service's own progress text. Apart from the client, so that a server shows a
 * job without it.
 */

import { FLASHCARD_TERMINAL_STATES } from '../constants/flashcards-constants.js';
import type { FlashcardJob } from '../contracts/flashcards.js';
import { jobErrorText } from '../errors/job-error-text.js';
import { defineJobKind, type JobOutcome } from './job-view.js';

const succeeded = (job: FlashcardJob) =>
  job.successful === true && job.result !== undefined && job.result !== null;

// The answer's "stopped" counts `completed` where `isDone` counts `done`: both kept as they were.
function outcome(job: FlashcardJob): JobOutcome | undefined {
  const stopped = job.ready || ['failed', 'cancelled', 'canceled', 'completed'].includes(job.status);
  if (!stopped) return undefined;
  if (succeeded(job)) return 'succeeded';
  return job.status === 'cancelled' || job.status === 'canceled' ? 'cancelled' : 'failed';
}

export const FLASHCARDS_JOB = defineJobKind<FlashcardJob>({
  isDone: (job) => job.ready || FLASHCARD_TERMINAL_STATES.includes(job.status),
  status: (job) => job.status,
  progress: (job) => (succeeded(job) ? 100 : job.progress?.percent),
  message: (job) =>
    job.progress?.message || `${job.status}${job.progress?.stage ? ` (${job.progress.stage})` : ''}`,
  outcome,
  error: (job) =>
    outcome(job) !== undefined && !succeeded(job) ? (jobErrorText(job.error) ?? 'no reason given') : null,
});

/** What the long-job answer needs to know of a flashcards job. */
export const flashcardsJobView = FLASHCARDS_JOB.view;
