/**
 * The job ledger: the durable record of every paid job this installation started or is starting (claim,
 * upload receipt, job id, last status, last read), so that a crash, a host restart, a cut-off tool call or
 * an identical call in another process never leads to uploading or paying twice.
 *
 * `JobLedger` is the storage interface the job engine needs — atomic insert, compare-and-set on a
 * revision, reads and lists — kept small so that another store (PostgreSQL: `INSERT … ON CONFLICT DO
 * NOTHING`, `UPDATE … WHERE revision = $n`) can stand in for the file store below.
 *
 * File store layout (no lock server; safe with several processes on one machine):
 *   <dir>/entries/<service>/<sha256(service, fingerprint)>.json   one entry per file, replaced atomically
 *   <dir>/by-id/<service>/<sha256(id)>                            name of the entry file holding that id
 * - insert writes a temp file and hard-links it to the entry name: the link fails if the entry exists, so
 *   of two processes inserting the same entry exactly one wins, and nobody ever sees a partial file.
 * - compare-and-set holds a per-entry lock (proper-lockfile: a lock directory with stale detection, a
 *   well-kept library used by npm's own tooling, rather than a lock protocol of our own) while it reads,
 *   compares the revision and renames the new version into place.
 * - list keeps what it parsed, per entry file, with the file's stat (device, inode, size, mtime and ctime in
 *   ns): every write renames or links a new file into place, so a changed entry has a new inode and a new
 *   stamp, and is read again; an unchanged one costs a stat instead of an open, a read and a parse (issue 24:
 *   `list_jobs` read and parsed the whole ledger on every call).
 * - reads (directory listings, stats, entry and index files) are synchronous: the state directory is local
 *   and its files small, and a synchronous call costs a few µs where an asynchronous one is a thread-pool
 *   round trip per step, the largest CPU cost of a status read and of a list in the issue-24 profiles. A
 *   ledger of 10,000 entries blocks a list for a few ms. A compare-and-set's lock and its entry's temp file,
 *   write, close and rename are synchronous too, for the same reason; only its fsync, which waits on the
 *   disk, goes through the thread pool.
 */

import {
  type BigIntStats,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpath,
  rmdirSync,
  statSync,
  utimesSync,
} from 'node:fs';
import { link, mkdir, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defaultStateDir } from '../config/default-state-dir.js';
import { ValidationError } from '../errors/polymodal-error.js';
import { tempPathFor, writeSmallFileAtomic } from '../files/write-file-atomic.js';
import { nodeCrypto } from '../util/builtins.js';

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
  /** Creates the entry unless one exists; returns the entry that is there afterwards and whether it is ours. */
  insert(entry: NewLedgerEntry): Promise<{ inserted: boolean; entry: LedgerEntry }>;
  /**
   * Applies `patch` only if the entry is still at `revision`; undefined when another write came first.
   * `durable: false` (for a write that only spaces reads, the taking of a status read) lets the store commit
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

export interface JobLedgerOptions {
  /** Ledger directory. Default `<defaultStateDir>/jobs`. */
  dir?: string;
  env?: NodeJS.ProcessEnv;
}

const StoredEntry = z.looseObject({
  service: z.string(),
  fingerprint: z.string(),
  id: z.string().nullable(),
  receipt: z.string().nullable().optional(),
  receiptIssuedAt: z.string().nullable().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  lastStatus: z.string(),
  title: z.string().nullable().optional(),
  request: z.record(z.string(), z.unknown()).optional(),
  data: z.record(z.string(), z.unknown()).optional(),
  claim: z.object({ owner: z.string(), expiresAt: z.string() }).nullable().optional(),
  lastReadAt: z.string().nullable().optional(),
  nextReadAt: z.string().nullable().optional(),
  readingUntil: z.string().nullable().optional(),
  // Only spaces reads: a value that cannot be one is dropped rather than making the entry unreadable.
  retryAfterFloorMs: z.number().nonnegative().nullable().optional().catch(undefined),
  pending: z
    .looseObject({
      lastStatus: z.string(),
      since: z.string(),
      receipt: z.string().nullable().optional(),
      receiptIssuedAt: z.string().nullable().optional(),
      title: z.string().nullable().optional(),
      request: z.record(z.string(), z.unknown()).optional(),
      data: z.record(z.string(), z.unknown()).optional(),
    })
    .nullable()
    .optional(),
  // Entries written before revisions existed start at 0.
  revision: z.number().int().min(0).default(0),
});

const SERVICE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** A lock not refreshed for this long belongs to a dead process and is taken over. */
const LOCK_STALE_MS = 10_000;

function sha256(text: string): string {
  return nodeCrypto().createHash('sha256').update(text).digest('hex');
}

function checkService(service: string): string {
  if (!SERVICE_NAME.test(service)) {
    throw new ValidationError(
      `Invalid service name for the job ledger: use letters, digits, ".", "_" or "-" (got ${JSON.stringify(service)}).`,
      [{ path: 'service', message: 'invalid service name' }],
    );
  }
  return service;
}

/**
 * The file system proper-lockfile takes its lock with: the same steps (make the lock directory, stat it,
 * refresh its mtime, remove it) made synchronously, their callbacks called on the next tick. Its default,
 * graceful-fs, sends each step through the thread pool, and a taking's lock and release were four such
 * round trips, the largest CPU cost of a status read on the file store (issue 24: about 170 µs of about
 * 600). The lock directory is in the local state directory, like the entries read synchronously below. One
 * object for the process: proper-lockfile keeps its probe of the file system's mtime precision on it.
 */
const LOCK_FS = (() => {
  const later =
    <A extends unknown[], R>(step: (...args: A) => R) =>
    (...args: [...A, (error: Error | null, result?: R) => void]) => {
      const callback = args.pop() as (error: Error | null, result?: R) => void;
      let result: R;
      try {
        result = step(...(args as unknown as A));
      } catch (error) {
        process.nextTick(callback, error as Error);
        return;
      }
      process.nextTick(callback, null, result);
    };
  return {
    mkdir: later((file: string) => mkdirSync(file)),
    rmdir: later((file: string) => rmdirSync(file)),
    stat: later((file: string) => statSync(file)),
    utimes: later((file: string, atime: Date, mtime: Date) => utimesSync(file, atime, mtime)),
    // Not used (realpath: false below); proper-lockfile's interface has it.
    realpath,
    rmdirSync,
  };
})();

/** proper-lockfile, loaded with the first write (see `withEntryLock`). */
let lockfile: typeof import('proper-lockfile') | undefined;
/** Waits out another process's lock for up to about 10 s (200 attempts, 5 to 50 ms apart). */
const LOCK_RETRIES = { retries: 200, minTimeout: 5, maxTimeout: 50, factor: 1.3 };

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * How much older than `updatedSince` an entry file's mtime may be and still be read: the file's mtime comes
 * from the file system's clock, `updatedAt` from the writer's, and the two may disagree a little (a network
 * file system, a clock step). Within this, files are read and the entries' own `updatedAt` decides.
 */
const MTIME_SLACK_MS = 10 * 60 * 1000;
/**
 * An entry written less than this long ago (by its own `updatedAt`) is not kept by `list`: the stat stamp
 * of a file written twice within one tick of the file system's clock could, with an inode reused, match an
 * older version's (git's "racy" case), so only entries that have been still for a while are trusted.
 */
const RECENT_WRITE_MS = 2_000;

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

export function createJobLedger(options: JobLedgerOptions = {}): JobLedger {
  const dir = path.resolve(options.dir ?? path.join(defaultStateDir(options.env), 'jobs'));
  const queues = new Map<string, Promise<unknown>>();

  const entryFile = (service: string, fp: string) =>
    path.join(dir, 'entries', checkService(service), `${sha256(`${service}\n${fp}`)}.json`);
  const indexFile = (service: string, id: string) =>
    path.join(dir, 'by-id', checkService(service), sha256(id));

  /** Runs `task` after every earlier task on the same key (this process only). */
  function serialize<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = queues.get(key) ?? Promise.resolve();
    const next = previous.then(task, task);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    queues.set(key, settled);
    void settled.then(() => {
      if (queues.get(key) === settled) queues.delete(key);
    });
    return next;
  }

  /** Entry directories made (or found) by this ledger: made again only when a lock finds one gone. */
  const madeDirs = new Set<string>();
  const makeDir = (directory: string) => {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    madeDirs.add(directory);
  };

  /** Runs `task` holding the entry's lock: one writer at a time across processes (and, serialised, here). */
  function withEntryLock<T>(file: string, task: () => Promise<T>): Promise<T> {
    return serialize(file, async () => {
      const directory = path.dirname(file);
      if (!madeDirs.has(directory)) makeDir(directory);
      // Loaded with the first write (with graceful-fs and signal-exit, which patch fs and hook exit signals):
      // a server that only starts and lists its tools never needs it.
      lockfile ??= (await import('proper-lockfile')).default;
      const lockOptions = {
        realpath: false,
        fs: LOCK_FS,
        stale: LOCK_STALE_MS,
        // A lock lost to a stalled event loop must not crash the process: the revision check still
        // refuses a write based on an outdated read.
        onCompromised: () => undefined,
      };
      let release: () => Promise<void>;
      try {
        // One attempt first: this process already serialises its own writers, so the lock is nearly always
        // free, and an attempt without retries does not build the schedule of 200 (a tenth of a taking's
        // CPU in the issue-24 profile).
        release = await lockfile.lock(file, { ...lockOptions, retries: 0 });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') makeDir(directory);
        else if (code !== 'ELOCKED') throw error;
        release = await lockfile.lock(file, { ...lockOptions, retries: LOCK_RETRIES });
      }
      try {
        return await task();
      } finally {
        await release().catch(() => undefined);
      }
    });
  }

  /** What `list` last parsed per entry file, with the stat stamp it was read under. */
  const listed = new Map<string, { stamp: string; entry: LedgerEntry | undefined }>();

  /**
   * An entry file as `list` reads it: `undefined` when it is gone or when it was last modified more than
   * MTIME_SLACK_MS before `since` (an older entry); the kept parse while its stamp holds; else a promise of
   * the entry read afresh (kept when it has been still for RECENT_WRITE_MS). Kept entries are frozen, since
   * every later list hands out the same objects.
   */
  function listedEntry(
    file: string,
    since: number | undefined,
  ): LedgerEntry | undefined | Promise<LedgerEntry | undefined> {
    let stats: BigIntStats;
    try {
      // Synchronous on purpose: a stat of a local file is a few µs, less CPU than the promise and the
      // thread-pool round trip of an asynchronous one (measured: 0.2 against 0.75 ms per 100 entries).
      stats = statSync(file, { bigint: true });
    } catch (error) {
      listed.delete(file);
      if (isMissing(error)) return undefined;
      throw error;
    }
    if (since !== undefined && Number(stats.mtimeMs) < since - MTIME_SLACK_MS) return undefined;
    const stamp = `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
    const kept = listed.get(file);
    if (kept?.stamp === stamp) return kept.entry;
    return readEntry(file).then((entry) => {
      if (entry !== undefined && Date.now() - Date.parse(entry.updatedAt) >= RECENT_WRITE_MS) {
        listed.set(file, { stamp, entry: deepFreeze(entry) });
      } else {
        listed.delete(file);
      }
      return entry;
    });
  }

  async function readEntry(file: string): Promise<LedgerEntry | undefined> {
    let text: string;
    try {
      // Synchronous on purpose, like list's stats: an entry is a small local file (a few KB), read in tens of
      // µs, while an asynchronous read is four thread-pool round trips (open, fstat, read, close), which the
      // issue-24 profile of a status read showed as its largest cost.
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    try {
      const parsed = StoredEntry.safeParse(JSON.parse(text));
      return parsed.success ? (parsed.data as LedgerEntry) : undefined;
    } catch {
      // A corrupt entry (edited by hand, disk trouble) is skipped rather than blocking all work.
      return undefined;
    }
  }

  function serializeEntry(entry: LedgerEntry): string {
    return `${JSON.stringify(withoutUndefined(entry), null, 2)}\n`;
  }

  async function writeIndex(entry: LedgerEntry, file: string): Promise<void> {
    if (!entry.id) return;
    const index = indexFile(entry.service, entry.id);
    await mkdir(path.dirname(index), { recursive: true, mode: 0o700 });
    await writeSmallFileAtomic(index, path.basename(file), { fsync: false });
  }

  /**
   * The service's entries; with `since` (epoch ms), only those updated at or after it. Every write replaces
   * an entry's file, so a file last modified more than MTIME_SLACK_MS before `since` holds an older entry and
   * is not read (a stat instead of a read and a parse); the rest are read and kept by their `updatedAt`.
   */
  async function listService(service: string, since?: number): Promise<LedgerEntry[]> {
    const directory = path.join(dir, 'entries', checkService(service));
    let names: string[];
    try {
      // Synchronous like the stats and reads below: one local directory listing.
      names = readdirSync(directory);
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
    const files = names
      .filter((name) => name.endsWith('.json') && !name.startsWith('.'))
      .map((name) => path.join(directory, name));
    // Entries removed from the directory are forgotten.
    const present = new Set(files);
    for (const file of listed.keys()) {
      if (path.dirname(file) === directory && !present.has(file)) listed.delete(file);
    }
    const found = files.map((file) => listedEntry(file, since));
    // Only entries read afresh are promises; a list of kept ones is not awaited a hundred times over.
    const entries = found.some((item) => item instanceof Promise)
      ? await Promise.all(found)
      : (found as (LedgerEntry | undefined)[]);
    return entries.filter(
      (entry): entry is LedgerEntry =>
        entry !== undefined &&
        entry.service === service &&
        (since === undefined || Date.parse(entry.updatedAt) >= since),
    );
  }

  /**
   * Entry file names by job id, as the index or a scan found them: a job id names one job, recorded in one
   * entry for good, so the index need not be read again (an entry that no longer holds the id is checked
   * below, and then the index is).
   */
  const entryNames = new Map<string, string>();

  async function findById(service: string, id: string): Promise<LedgerEntry | undefined> {
    const key = `${service}\n${id}`;
    const known = entryNames.get(key);
    if (known !== undefined) {
      const entry = await readEntry(path.join(dir, 'entries', service, known));
      if (entry?.id === id) return entry;
      entryNames.delete(key);
    }
    let target: string | undefined;
    try {
      target = readFileSync(indexFile(service, id), 'utf8').trim();
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    if (target && /^[0-9a-f]{64}\.json$/.test(target)) {
      const entry = await readEntry(path.join(dir, 'entries', service, target));
      if (entry?.id === id) {
        entryNames.set(key, target);
        return entry;
      }
    }
    // Missing or stale index (e.g. a process died between the entry and its index): fall back to a scan,
    // and mend the index, since writes that keep the id do not rewrite it.
    const all = await listService(service);
    const found = all.find((entry) => entry.id === id);
    if (found) await writeIndex(found, entryFile(service, found.fingerprint));
    return found;
  }

  async function compareAndSet(
    service: string,
    fp: string,
    revision: number | undefined,
    patch: LedgerPatch,
  ): Promise<LedgerEntry | undefined> {
    const file = entryFile(service, fp);
    return withEntryLock(file, async () => {
      const existing = await readEntry(file);
      if (!existing) return undefined;
      if (revision !== undefined && existing.revision !== revision) return undefined;
      const next: LedgerEntry = {
        ...existing,
        ...withoutUndefined(patch),
        service,
        fingerprint: fp,
        createdAt: existing.createdAt,
        updatedAt: new Date().toISOString(),
        revision: existing.revision + 1,
      };
      await writeSmallFileAtomic(file, serializeEntry(next));
      // The index names the entry holding a job id: only a new id changes it.
      if (next.id !== existing.id) await writeIndex(next, file);
      return next;
    });
  }

  return {
    location: dir,
    async findByFingerprint(service, fp) {
      return readEntry(entryFile(service, fp));
    },
    findById,
    async list(listOptions = {}) {
      let services: string[];
      if (listOptions.service !== undefined) {
        services = [checkService(listOptions.service)];
      } else {
        try {
          services = readdirSync(path.join(dir, 'entries')).filter((name) => SERVICE_NAME.test(name));
        } catch (error) {
          if (isMissing(error)) return [];
          throw error;
        }
      }
      const since =
        listOptions.updatedSince === undefined ? undefined : parseUpdatedSince(listOptions.updatedSince);
      const entries = (await Promise.all(services.map((service) => listService(service, since)))).flat();
      entries.sort((a, b) => compareDesc(a.createdAt, b.createdAt) || compareDesc(a.updatedAt, b.updatedAt));
      return listOptions.limit === undefined ? entries : entries.slice(0, Math.max(0, listOptions.limit));
    },
    async insert(input) {
      const file = entryFile(input.service, input.fingerprint);
      const now = new Date().toISOString();
      const entry: LedgerEntry = {
        ...withoutUndefined(input),
        createdAt: input.createdAt ?? now,
        updatedAt: now,
        revision: 1,
      } as LedgerEntry;
      await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      const temp = tempPathFor(file);
      await writeFile(temp, serializeEntry(entry), { mode: 0o600, flag: 'wx' });
      try {
        await link(temp, file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const existing = await readEntry(file);
        if (existing) return { inserted: false, entry: existing };
        // An unreadable entry occupies the name: replace it under the lock rather than stay stuck.
        return withEntryLock(file, async () => {
          const again = await readEntry(file);
          if (again) return { inserted: false, entry: again };
          await writeSmallFileAtomic(file, serializeEntry(entry));
          await writeIndex(entry, file);
          return { inserted: true, entry };
        });
      } finally {
        await unlink(temp).catch(() => undefined);
      }
      await writeIndex(entry, file);
      return { inserted: true, entry };
    },
    // Always durable, `durable: false` included: an entry file renamed into place before its bytes reach the
    // disk can be found empty after a machine crash (on file systems without ext4's rename heuristic), and
    // the entry holds the job's id and receipt, not only the read's times.
    compareAndSet: (service, fp, revision, patch) => compareAndSet(service, fp, revision, patch),
    update: (service, fp, patch) => compareAndSet(service, fp, undefined, patch),
    async updateById(service, id, patch) {
      const entry = await findById(service, id);
      return entry ? compareAndSet(service, entry.fingerprint, undefined, patch) : undefined;
    },
  };
}

function compareDesc(a: string, b: string): number {
  return a < b ? 1 : a > b ? -1 : 0;
}

/** Freezes `value` and every object in it (plain JSON data: objects and arrays). */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
}
