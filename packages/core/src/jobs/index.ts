export * from './create-job-engine.js';
export { defineJobResource, type JobPollOptions, type JobWaitOptions } from './job-resource.js';
export { defineJobKind, type JobKind, type JobOutcome, type JobView } from './job-view.js';
export * from './poll-job.js';
export * from './single-flight.js';
