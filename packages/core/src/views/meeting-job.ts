/**
 * A meeting job's readings (see job-view.ts): stopped at COMPLETED, FAILED or CANCELLED, with the
 * service's own progress and `errorMessage`. Apart from the client, so that a server shows a job without it.
 */

import { isMeetingTerminal } from '../constants/meeting-constants.js';
import type { MeetingJob } from '../contracts/meeting.js';
import { defineJobKind, type JobOutcome } from './job-view.js';

const OUTCOMES = new Map<string, JobOutcome>([
  ['COMPLETED', 'succeeded'],
  ['FAILED', 'failed'],
  ['CANCELLED', 'cancelled'],
]);

export const MEETING_JOB = defineJobKind<MeetingJob>({
  isDone: (job) => isMeetingTerminal(job.status),
  status: (job) => job.status,
  progress: (job) => job.progress,
  outcome: (job) => OUTCOMES.get(job.status),
  error: (job) => job.errorMessage ?? null,
});

/** What the long-job answer needs to know of a meeting job. */
export const meetingJobView = MEETING_JOB.view;
