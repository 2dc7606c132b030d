/**
 * The job ledger's file store (no lock server; safe with several processes on one machine). The storage
 * interface and the entry's fields are in `job-ledger.ts`; the layout on disk in `entry-files.ts`.
 *
 * - insert writes a temp file and hard-links it to the entry name: the link fails if the entry exists, so
 *   of two processes inserting the same entry exactly one wins, and nobody ever sees a partial file.
 * - compare-and-set holds the entry's lock (`entry-locks.ts`) while it reads, compares the revision and
 *   renames the new version into place; its fsync is the one step that waits on the disk.
 * - list keeps what it parsed while the entry file is unchanged (`entry-listing.ts`).
 */
import { readFileSync } from 'node:fs';
import { link, mkdir, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { defaultStateDir } from '../config/default-state-dir.js';
import { tempPathFor, writeSmallFileAtomic } from '../files/write-file-atomic.js';
import {
  checkService,
  EntryPaths,
  isMissing,
  readEntry,
  serializeEntry,
  withoutUndefined,
} from './entry-files.js';
import { EntryListing } from './entry-listing.js';
import { EntryLocks } from './entry-locks.js';
import {
  type JobLedger,
  type LedgerEntry,
  type LedgerPatch,
  type ListLedgerOptions,
  type NewLedgerEntry,
  parseUpdatedSince,
} from './job-ledger.js';

export type {
  JobLedger,
  LedgerClaim,
  LedgerEntry,
  LedgerPatch,
  LedgerWriteOptions,
  ListLedgerOptions,
  NewLedgerEntry,
  PendingSubmission,
} from './job-ledger.js';
export { parseUpdatedSince } from './job-ledger.js';

export interface JobLedgerOptions {
  /** Ledger directory. Default `<defaultStateDir>/jobs`. */
  dir?: string;
  env?: NodeJS.ProcessEnv;
}

export function createJobLedger(options: JobLedgerOptions = {}): JobLedger {
  const dir = path.resolve(options.dir ?? path.join(defaultStateDir(options.env), 'jobs'));
  const store = new FileStore(new EntryPaths(dir));
  // Plain functions, not methods: callers wrap and pass them on (`{ ...ledger, findById }`).
  return {
    location: dir,
    findByFingerprint: async (service, fingerprint) => readEntry(store.paths.entryFile(service, fingerprint)),
    findById: (service, id) => store.findById(service, id),
    list: (listOptions) => store.list(listOptions),
    insert: (entry) => store.insert(entry),
    // Always durable, `durable: false` included: an entry file renamed into place before its bytes reach the
    // disk can be found empty after a machine crash (on file systems without ext4's rename heuristic), and
    // the entry holds the job's id and receipt, not only the read's times.
    compareAndSet: (service, fingerprint, revision, patch) =>
      store.compareAndSet(service, fingerprint, revision, patch),
    update: (service, fingerprint, patch) => store.compareAndSet(service, fingerprint, undefined, patch),
    async updateById(service, id, patch) {
      const entry = await store.findById(service, id);
      return entry ? store.compareAndSet(service, entry.fingerprint, undefined, patch) : undefined;
    },
  };
}

class FileStore {
  private readonly locks = new EntryLocks();
  private readonly listing: EntryListing;
  /**
   * Entry file names by job id, as the index or a scan found them: a job id names one job, recorded in one
   * entry for good, so the index need not be read again (an entry that no longer holds the id is checked,
   * and then the index is).
   */
  private readonly entryNames = new Map<string, string>();

  constructor(readonly paths: EntryPaths) {
    this.listing = new EntryListing(paths);
  }

  async findById(service: string, id: string): Promise<LedgerEntry | undefined> {
    const key = `${service}\n${id}`;
    const known = this.entryNames.get(key);
    if (known !== undefined) {
      const entry = await readEntry(path.join(this.paths.serviceDir(service), known));
      if (entry?.id === id) return entry;
      this.entryNames.delete(key);
    }
    const target = this.indexedName(service, id);
    if (target) {
      const entry = await readEntry(path.join(this.paths.serviceDir(service), target));
      if (entry?.id === id) {
        this.entryNames.set(key, target);
        return entry;
      }
    }
    // Missing or stale index (e.g. a process died between the entry and its index): fall back to a scan,
    // and mend the index, since writes that keep the id do not rewrite it.
    const found = (await this.listing.service(service)).find((entry) => entry.id === id);
    if (found) await this.writeIndex(found, this.paths.entryFile(service, found.fingerprint));
    return found;
  }

  /** Newest first (by creation time, then by the last write). */
  async list(options: ListLedgerOptions = {}): Promise<LedgerEntry[]> {
    const services =
      options.service === undefined ? this.listing.services() : [checkService(options.service)];
    const since = options.updatedSince === undefined ? undefined : parseUpdatedSince(options.updatedSince);
    const entries = (
      await Promise.all(services.map((service) => this.listing.service(service, since)))
    ).flat();
    entries.sort((a, b) => compareDesc(a.createdAt, b.createdAt) || compareDesc(a.updatedAt, b.updatedAt));
    return options.limit === undefined ? entries : entries.slice(0, Math.max(0, options.limit));
  }

  async insert(input: NewLedgerEntry): Promise<{ inserted: boolean; entry: LedgerEntry }> {
    const file = this.paths.entryFile(input.service, input.fingerprint);
    const now = new Date().toISOString();
    const entry: LedgerEntry = {
      ...withoutUndefined(input),
      createdAt: input.createdAt ?? now,
      updatedAt: now,
      revision: 1,
    };
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const temp = tempPathFor(file);
    await writeFile(temp, serializeEntry(entry), { mode: 0o600, flag: 'wx' });
    try {
      await link(temp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const existing = await readEntry(file);
      if (existing) return { inserted: false, entry: existing };
      return this.replaceUnreadable(file, entry);
    } finally {
      await unlink(temp).catch(() => undefined);
    }
    await this.writeIndex(entry, file);
    return { inserted: true, entry };
  }

  /** Applies `patch` if the entry is at `revision` (any revision when undefined); undefined otherwise. */
  async compareAndSet(
    service: string,
    fingerprint: string,
    revision: number | undefined,
    patch: LedgerPatch,
  ): Promise<LedgerEntry | undefined> {
    const file = this.paths.entryFile(service, fingerprint);
    return this.locks.hold(file, async () => {
      const existing = await readEntry(file);
      if (!existing) return undefined;
      if (revision !== undefined && existing.revision !== revision) return undefined;
      const next: LedgerEntry = {
        ...existing,
        ...withoutUndefined(patch),
        service,
        fingerprint,
        createdAt: existing.createdAt,
        updatedAt: new Date().toISOString(),
        revision: existing.revision + 1,
      };
      await writeSmallFileAtomic(file, serializeEntry(next));
      // The index names the entry holding a job id: only a new id changes it.
      if (next.id !== existing.id) await this.writeIndex(next, file);
      return next;
    });
  }

  /** An unreadable entry occupies the name: it is replaced under the lock rather than staying stuck. */
  private replaceUnreadable(
    file: string,
    entry: LedgerEntry,
  ): Promise<{ inserted: boolean; entry: LedgerEntry }> {
    return this.locks.hold(file, async () => {
      const again = await readEntry(file);
      if (again) return { inserted: false, entry: again };
      await writeSmallFileAtomic(file, serializeEntry(entry));
      await this.writeIndex(entry, file);
      return { inserted: true, entry };
    });
  }

  /** The entry file name the index gives for a job id, if it is one. */
  private indexedName(service: string, id: string): string | undefined {
    let target: string;
    try {
      target = readFileSync(this.paths.indexFile(service, id), 'utf8').trim();
    } catch (error) {
      if (!isMissing(error)) throw error;
      return undefined;
    }
    return /^[0-9a-f]{64}\.json$/.test(target) ? target : undefined;
  }

  private async writeIndex(entry: LedgerEntry, file: string): Promise<void> {
    if (!entry.id) return;
    const index = this.paths.indexFile(entry.service, entry.id);
    await mkdir(path.dirname(index), { recursive: true, mode: 0o700 });
    await writeSmallFileAtomic(index, path.basename(file), { fsync: false });
  }
}

function compareDesc(a: string, b: string): number {
  return a < b ? 1 : a > b ? -1 : 0;
}
