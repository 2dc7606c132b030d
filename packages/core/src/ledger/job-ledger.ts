/**
 * The job ledger's storage interface: the durable record of every paid job this installation started or is
 * starting (claim, upload receipt, job id, last status, the read schedule), so that a crash, a host
 * restart, a cut-off tool call or an identical call in another process never leads to uploading or paying
 * twice. Kept small — atomic insert, compare-and-set on a revision, reads and lists — so that any store
 * can stand in: the file store (`create-job-ledger.ts`) or PostgreSQL (`INSERT … ON CONFLICT DO NOTHING`,
 * `UPDATE … WHERE revision = $n`).
 */
import { ValidationError } from '../errors/polymodal-error.js';

/** Who is submitting a request right now; the claim lapses at `expiresAt` unless renewed. */
export interface LedgerClaim {
  owner: string;
  expiresAt: string;
}

export interface LedgerEntry {
  service: string;
  fingerprint: string;
  /** Job id once the job exists; null while it is being submitted or only an upload receipt is known. */
  id: string | null;
  receipt?: string | null | undefined;
  /** ISO time the receipt was issued (receipts expire, 2 h for meetings). */
  receiptIssuedAt?: string | null | undefined;
  createdAt: string;
  updatedAt: string;
  lastStatus: string;
  title?: string | null | undefined;
  /** What was asked (file path, options), for humans and for resuming; never credentials. */
  request?: Record<string, unknown> | undefined;
  /** Service-specific state the engine does not interpret (e.g. the parts of a long speech). */
  data?: Record<string, unknown> | undefined;
  /** Set while a process submits this request; null or absent otherwise. */
  claim?: LedgerClaim | null | undefined;
  /** When the platform was last asked for this job's status (ISO), and the earliest time to ask again. */
  lastReadAt?: string | null | undefined;
  nextReadAt?: string | null | undefined;
  /** Set while a process reads the job from the platform (until the read's deadline at most). */
  readingUntil?: string | null | undefined;
  /**
   * The longest pause the platform asked for between two reads of this job (its largest Retry-After, in
   * ms): every later read, in any process and after a restart, comes at least this long after the one
   * before. Null or absent when it never asked.
   */
  retryAfterFloorMs?: number | null | undefined;
  /**
   * A submission that is to replace this entry's job (asked anew on purpose, or the job was gone or not
   * worth resuming) and has not created its job yet. Until it has, every other field still describes the
   * recorded job, which stays listed, resumable and counted; the submission's own progress (its receipt,
   * the reservation it made, its state) is kept here. Null or absent when nothing is replacing the job.
   */
  pending?: PendingSubmission | null | undefined;
  /** Incremented by every write; `compareAndSet` succeeds only on the revision it was given. */
  revision: number;
}

/** What a submission replacing a recorded job has done so far (see `LedgerEntry.pending`). */
export interface PendingSubmission {
  /** SUBMITTING, a service's own step (e.g. UPLOADED), UNKNOWN or NOT_CREATED once it stopped. */
  lastStatus: string;
  /** When the replacement was first claimed (ISO). */
  since: string;
  receipt?: string | null | undefined;
  receiptIssuedAt?: string | null | undefined;
  title?: string | null | undefined;
  request?: Record<string, unknown> | undefined;
  data?: Record<string, unknown> | undefined;
}

export type NewLedgerEntry = Omit<LedgerEntry, 'createdAt' | 'updatedAt' | 'revision'> &
  Partial<Pick<LedgerEntry, 'createdAt'>>;

/** The fields a write may change (identity and bookkeeping are the ledger's). */
export type LedgerPatch = Partial<
  Omit<LedgerEntry, 'service' | 'fingerprint' | 'createdAt' | 'updatedAt' | 'revision'>
>;

export interface ListLedgerOptions {
  service?: string;
  limit?: number;
  /** Only entries whose `updatedAt` is at or after this ISO time. */
  updatedSince?: string;
}

/** One page of the newest-first listing (`JobLedger.page`). */
export interface LedgerPageOptions {
  /** Only these services' entries (default: every service). */
  services?: readonly string[];
  /** Only entries whose `lastStatus` is one of these (compared as written). */
  statuses?: readonly string[];
  /** Only entries whose `lastStatus` is none of these. */
  excludeStatuses?: readonly string[];
  /** At most this many entries. */
  limit: number;
  /** Where an earlier page ended (its `nextCursor`): only entries after it in the newest-first order. */
  cursor?: string;
}

export interface LedgerPage {
  entries: LedgerEntry[];
  /**
   * Present when older entries may follow: pass it as `cursor` for the next page. A page can be shorter
   * than `limit` and still have one, when a store bounds the entries it examines for the status filters.
   */
  nextCursor?: string;
}

export interface LedgerWriteOptions {
  /** Default true: the write is on disk before it returns. */
  durable?: boolean;
}

export interface JobLedger {
  /** Where the entries live, for messages (a directory, a database name); never a secret. */
  readonly location: string;
  findByFingerprint(service: string, fingerprint: string): Promise<LedgerEntry | undefined>;
  findById(service: string, id: string): Promise<LedgerEntry | undefined>;
  /**
   * Newest first (by creation time). `updatedSince` (ISO time) keeps only the entries written at or after
   * it, so that a caller who needs one day (the credit budget) does not read every entry of every day.
   */
  list(options?: ListLedgerOptions): Promise<LedgerEntry[]>;
  /**
   * A page of the entries, newest first (by creation time), at the cost of the page, not of the history.
   * Paging on with `nextCursor` visits every entry that existed when paging began exactly once, also while
   * entries are being added (those come before the first page's position, so a later page never shows them).
   */
  page(options: LedgerPageOptions): Promise<LedgerPage>;
  /** Creates the entry unless one exists; returns the entry that is there afterwards and whether it is ours. */
  insert(entry: NewLedgerEntry): Promise<{ inserted: boolean; entry: LedgerEntry }>;
  /**
   * Applies `patch` only if the entry is still at `revision`; undefined when another write came first.
   * `durable: false` (for a write that only spaces reads, the reservation of a status read) lets the store commit
   * without waiting for the disk: the write may then be lost whole in a crash of the machine or the database,
   * never half-applied, and what was written durably before it stays. A store that cannot keep that promise
   * without the wait (the file store) writes durably anyway.
   */
  compareAndSet(
    service: string,
    fingerprint: string,
    revision: number,
    patch: LedgerPatch,
    options?: LedgerWriteOptions,
  ): Promise<LedgerEntry | undefined>;
  /** Applies `patch` to whatever revision is current; undefined when there is no entry. */
  update(service: string, fingerprint: string, patch: LedgerPatch): Promise<LedgerEntry | undefined>;
  updateById(service: string, id: string, patch: LedgerPatch): Promise<LedgerEntry | undefined>;
}

/**
 * `ListLedgerOptions.updatedSince` as epoch ms, for every store: a time that cannot be read is refused (a
 * filter must not silently vanish).
 */
export function parseUpdatedSince(value: string): number {
  const since = Date.parse(value);
  if (!Number.isFinite(since)) {
    throw new ValidationError(`updatedSince must be an ISO time, got ${JSON.stringify(value)}.`, [
      { path: 'updatedSince', message: 'not a time' },
    ]);
  }
  return since;
}

/** A cursor a store cannot have given: refused in words a person can act on. */
export function invalidCursor(): ValidationError {
  return new ValidationError('cursor is not one a listing gave: start again without it.', [
    { path: 'cursor', message: 'unknown cursor' },
  ]);
}

/** Whether `status` passes a page's status filters. */
export function statusWanted(status: string, options: LedgerPageOptions): boolean {
  if (options.statuses && !options.statuses.includes(status)) return false;
  return !options.excludeStatuses?.includes(status);
}
