export * from './create-job-ledger.js';
export * from './fingerprint.js';
