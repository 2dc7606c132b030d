/**
 * `@polymodal/core/jobs`: the job engine (claims, single flight, polling, deadlines) and the job ledger it
 * records in (the file store, fingerprints, the default state directory), for tools built on them.
 */

export * from './config/default-state-dir.js';
export * from './jobs/index.js';
export * from './ledger/index.js';
