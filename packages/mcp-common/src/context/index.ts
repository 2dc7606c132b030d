export * from './create-deferred-job-ledger.js';
export * from './create-deferred-speech-governor.js';
export * from './create-server-context.js';
export * from './request-scope.js';
