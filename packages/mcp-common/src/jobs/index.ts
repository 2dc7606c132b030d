export * from './job-handle.js';
export * from './list-jobs-tool.js';
export * from './long-job-contract.js';
export * from './respond-with-job.js';
