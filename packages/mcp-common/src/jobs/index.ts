export * from './job-handle.js';
export * from './long-job-contract.js';
export * from './register-list-jobs-tool.js';
export * from './respond-with-job.js';
