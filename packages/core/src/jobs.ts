/**
 * `@polymodal/core/jobs`: the job engine (claims, single flight, polling, deadlines) over a job ledger, and
 * the one job resource a service declares its job with (docs/extending.md adds a service with them).
 */
export { createJobEngine } from './jobs/create-job-engine.js';
export type { JobEngine, StartedJob, StartJobOptions, SubmissionPatch } from './jobs/job-engine.js';
export {
  defineJobResource,
  type JobLocation,
  type JobPollOptions,
  type JobReadOptions,
  type JobResourceOptions,
  type JobWaitOptions,
} from './jobs/job-resource.js';
export type { PollOutcome } from './jobs/poll-job.js';
export { NOT_CREATED } from './jobs/submission-outcome.js';
export { type DefinedJobKind, defineJobKind, type JobKind, type JobView } from './views/job-view.js';
