export * from './job-handle.js';
export * from './register-list-jobs-tool.js';
export * from './wait-for-job.js';
