/**
 * A video job's readings (see job-view.ts), the same for both video services: stopped at done, failed
 * or canceled (either spelling), with the best-effort progress percentage and the service's error object as
 * text. Apart from the job client, so that a tool presenting a job does not load it.
 */

import { VIDEO_TERMINAL_STATES } from '../constants/video-constants.js';
import type { VideoJob } from '../contracts/video.js';
import { jobErrorText } from '../errors/job-error-text.js';
import { defineJobKind, type JobOutcome } from './job-view.js';

const OUTCOMES = new Map<string, JobOutcome>([
  ['done', 'succeeded'],
  ['failed', 'failed'],
  ['canceled', 'cancelled'],
  ['cancelled', 'cancelled'],
]);

/** A percentage from the best-effort progress object, when it carries one. */
export function videoProgressPercent(job: VideoJob): number | undefined {
  if (job.status === 'done') return 100;
  const percent = job.progress?.percent;
  return typeof percent === 'number' && Number.isFinite(percent) ? percent : undefined;
}

function outcome(job: VideoJob): JobOutcome | undefined {
  return OUTCOMES.get(job.status);
}

export const VIDEO_JOB = defineJobKind<VideoJob>({
  isDone: (job) => VIDEO_TERMINAL_STATES.includes(job.status),
  status: (job) => job.status,
  progress: videoProgressPercent,
  outcome,
  error: (job) =>
    outcome(job) === 'failed' || outcome(job) === 'cancelled'
      ? (jobErrorText(job.error) ?? 'no reason given')
      : null,
});

/** What the long-job answer needs to know of a video job. */
export const videoJobView = VIDEO_JOB.view;
