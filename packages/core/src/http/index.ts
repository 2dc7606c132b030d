export * from './call-options.js';
export * from './compute-backoff-ms.js';
export * from './http-client.js';
export * from './is-retryable-error.js';
export * from './parse-retry-after.js';
