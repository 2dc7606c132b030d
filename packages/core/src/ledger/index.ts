export * from './create-job-ledger.js';
export * from './default-state-dir.js';
export * from './fingerprint.js';
