/** `@polymodal/core/ledger`: the job ledger (its storage interface and file store), request fingerprints. */
export {
  createJobLedger,
  type JobLedger,
  type LedgerClaim,
  type LedgerEntry,
  type LedgerPage,
  type LedgerPageOptions,
  type LedgerPatch,
  type LedgerWriteOptions,
  type NewLedgerEntry,
  parseUpdatedSince,
} from './ledger/create-job-ledger.js';
export { fingerprint } from './ledger/fingerprint.js';
export { invalidCursor } from './ledger/job-ledger.js';
