export { defineJobKind, type JobKind, type JobOutcome, type JobView } from '../views/job-view.js';
export * from './create-job-engine.js';
export { defineJobResource, type JobPollOptions, type JobWaitOptions } from './job-resource.js';
export * from './poll-job.js';
export * from './single-flight.js';
