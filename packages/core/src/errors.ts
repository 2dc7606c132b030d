/**
 * `@polymodal/core/errors`: every error class core throws (the root exports the same), with nothing of the
 * clients: code that only catches or builds errors (an MCP server at start) imports these without loading
 * the clients and their contracts.
 */
export * from './errors/index.js';
export { SubmissionInProgressError } from './jobs/create-job-engine.js';
export { LedgerError } from './ledger/create-job-ledger.js';
export { PrivateAddressError } from './net/public-only-lookup.js';
