export * from './create-job-engine.js';
export * from './poll-job.js';
export * from './single-flight.js';
