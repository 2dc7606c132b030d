/** `@polymodal/core/jobs`: the job engine (claims, single flight, polling, deadlines) over a job ledger. */
export type { StartJobOptions, SubmissionPatch } from './jobs/create-job-engine.js';
export { createJobEngine, NOT_CREATED } from './jobs/create-job-engine.js';
export type { PollOutcome } from './jobs/poll-job.js';
