/**
 * The job ledger's file store (no lock server; safe with several processes on one machine). The storage
 * interface and the entry's fields are in `job-ledger.ts`; the layout on disk in `entry-files.ts`.
 *
 * - insert writes a temp file and hard-links it to the entry name: the link fails if the entry exists, so
 *   of two processes inserting the same entry exactly one wins, and nobody ever sees a partial file.
 * - compare-and-set holds the entry's lock (`entry-locks.ts`) while it reads, compares the revision and
 *   renames the new version into place; its fsync is the one step that waits on the disk.
 * - every insert and write is first noted in the day's journals (`entry-journals.ts`), so that a page of the
 *   newest entries and the entries written today are read without touching older ones (`entry-pages.ts`);
 *   a directory from before the journals is brought into them on first use (`journal-migration.ts`).
 * - list keeps what it parsed while the entry file is unchanged (`entry-listing.ts`).
 */
import { existsSync, readFileSync } from 'node:fs';
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
import { comparePositions, EntryJournals, type Position } from './entry-journals.js';
import { EntryListing } from './entry-listing.js';
import { EntryLocks } from './entry-locks.js';
import { EntryPages, PageCollector } from './entry-pages.js';
import {
  type JobLedger,
  type LedgerEntry,
  type LedgerPage,
  type LedgerPageOptions,
  type LedgerPatch,
  type ListLedgerOptions,
  type NewLedgerEntry,
  parseUpdatedSince,
} from './job-ledger.js';
import { migrateToJournals, writeLayout } from './journal-migration.js';

export type {
  JobLedger,
  LedgerClaim,
  LedgerEntry,
  LedgerPage,
  LedgerPageOptions,
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
  /**
   * The clock writes are stamped with (epoch ms), default `Date.now`: for tools that build a ledger as it
   * would have been written over time (benchmarks, migrations from elsewhere).
   */
  now?: () => number;
}

export function createJobLedger(options: JobLedgerOptions = {}): JobLedger {
  const dir = path.resolve(options.dir ?? path.join(defaultStateDir(options.env), 'jobs'));
  const store = new FileStore(new EntryPaths(dir), options.now ?? Date.now);
  // Plain functions, not methods: callers wrap and pass them on (`{ ...ledger, findById }`).
  return {
    location: dir,
    findByFingerprint: async (service, fingerprint) => readEntry(store.paths.entryFile(service, fingerprint)),
    findById: (service, id) => store.findById(service, id),
    list: (listOptions) => store.list(listOptions),
    page: (pageOptions) => store.page(pageOptions),
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
  private readonly journals: EntryJournals;
  private readonly pages: EntryPages;
  private journaled = false;
  private migrating: Promise<boolean> | undefined;

  constructor(
    readonly paths: EntryPaths,
    private readonly now: () => number,
  ) {
    this.listing = new EntryListing(paths);
    this.journals = new EntryJournals(paths.dir);
    this.pages = new EntryPages(paths, this.journals, (file) => this.listing.read(file));
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
        this.rememberName(key, target);
        return entry;
      }
    }
    // With complete journals every id was indexed before its entry held it (and the migration mended the
    // index of every older entry): no index, no entry. A lookup of an unknown id costs one small read.
    if (this.journalsKnownComplete()) return undefined;
    // A directory not migrated yet may hold an entry whose process died between the entry and its index:
    // fall back to a scan, and mend the index, since writes that keep the id do not rewrite it.
    const found = (await this.listing.service(service)).find((entry) => entry.id === id);
    if (found) await this.writeIndex(found, this.paths.entryFile(service, found.fingerprint));
    return found;
  }

  /**
   * Newest first (by creation time, then by the last write). A day (`updatedSince`) or a page (`limit`) is
   * read through the journals; the whole ledger by reading the directories, which also finds an entry a
   * process that does not keep the journals added.
   */
  async list(options: ListLedgerOptions = {}): Promise<LedgerEntry[]> {
    const services =
      options.service === undefined ? this.listing.services() : [checkService(options.service)];
    const since = options.updatedSince === undefined ? undefined : parseUpdatedSince(options.updatedSince);
    if (since !== undefined && (await this.journalsComplete())) {
      const entries = await this.pages.since(since, options.service);
      entries.sort((a, b) => compareDesc(a.createdAt, b.createdAt) || compareDesc(a.updatedAt, b.updatedAt));
      return options.limit === undefined ? entries : entries.slice(0, Math.max(0, options.limit));
    }
    if (since === undefined && options.limit !== undefined && (await this.journalsComplete())) {
      const { service, limit } = options;
      return (await this.pages.page({ limit, ...(service === undefined ? {} : { services: [service] }) }))
        .entries;
    }
    const entries = (
      await Promise.all(services.map((service) => this.listing.service(service, since)))
    ).flat();
    entries.sort((a, b) => compareDesc(a.createdAt, b.createdAt) || compareDesc(a.updatedAt, b.updatedAt));
    return options.limit === undefined ? entries : entries.slice(0, Math.max(0, options.limit));
  }

  /** A page, newest first, through the journals (by reading the directories until they are complete). */
  async page(options: LedgerPageOptions): Promise<LedgerPage> {
    return (await this.journalsComplete()) ? this.pages.page(options) : this.scanPage(options);
  }

  async insert(input: NewLedgerEntry): Promise<{ inserted: boolean; entry: LedgerEntry }> {
    const file = this.paths.entryFile(input.service, input.fingerprint);
    const nowMs = this.now();
    const now = new Date(nowMs).toISOString();
    const entry: LedgerEntry = {
      ...withoutUndefined(input),
      createdAt: input.createdAt ?? now,
      updatedAt: now,
      revision: 1,
    };
    if (!this.journaled) await this.startJournalsIfNew();
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    this.noteCreated(entry, file, nowMs);
    await this.claimIndex(entry, file);
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
      const nowMs = this.now();
      const next: LedgerEntry = {
        ...existing,
        ...withoutUndefined(patch),
        service,
        fingerprint,
        createdAt: existing.createdAt,
        updatedAt: new Date(nowMs).toISOString(),
        revision: existing.revision + 1,
      };
      this.journals.noteWritten(service, path.basename(file), nowMs);
      // The index names the entry holding a job id, written before the entry holds it: only a new id
      // changes it.
      if (next.id !== existing.id) await this.claimIndex(next, file);
      await writeSmallFileAtomic(file, serializeEntry(next));
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
      this.noteCreated(entry, file, Date.parse(entry.updatedAt));
      await this.claimIndex(entry, file);
      await writeSmallFileAtomic(file, serializeEntry(entry));
      return { inserted: true, entry };
    });
  }

  /** Notes a new entry in the journals, before its file exists (a line without an entry is skipped). */
  private noteCreated(entry: LedgerEntry, file: string, nowMs: number): void {
    const name = path.basename(file);
    this.journals.noteCreated(entry.service, name, entry.createdAt);
    this.journals.noteWritten(entry.service, name, nowMs);
  }

  /**
   * A directory without entries starts with complete journals (written by this version from its first entry
   * on), so it never needs the migration that reads every entry once.
   */
  private async startJournalsIfNew(): Promise<void> {
    if (existsSync(this.journals.layoutFile)) {
      this.journaled = true;
      return;
    }
    if (existsSync(path.join(this.paths.dir, 'entries'))) return;
    await writeLayout(this.journals, 0);
    this.journaled = true;
  }

  /** Whether the journals are known complete (here, or by the layout file another process wrote). */
  private journalsKnownComplete(): boolean {
    this.journaled ||= existsSync(this.journals.layoutFile);
    return this.journaled;
  }

  /**
   * Whether pages can be read through the journals: migrates the directory once, if another process is not.
   * A migration that fails (a full disk, a directory made read-only) leaves the lists reading the
   * directories, and is tried again by the next list.
   */
  private async journalsComplete(): Promise<boolean> {
    if (this.journaled) return true;
    this.migrating ??= migrateToJournals(this.paths, this.journals, this.listing, this.locks, (entry, file) =>
      this.claimIndex(entry, file),
    )
      .catch(() => false)
      .finally(() => {
        this.migrating = undefined;
      });
    this.journaled = await this.migrating;
    return this.journaled;
  }

  /** A page from the directories themselves, in the journals' order, while the journals are not complete. */
  private async scanPage(options: LedgerPageOptions): Promise<LedgerPage> {
    const collector = new PageCollector(options);
    const services = options.services ? options.services.map(checkService) : this.listing.services();
    const found: Array<{ entry: LedgerEntry; position: Position }> = [];
    for (const entry of (
      await Promise.all(services.map((service) => this.listing.service(service)))
    ).flat()) {
      const ms = Date.parse(entry.createdAt);
      const name = path.basename(this.paths.entryFile(entry.service, entry.fingerprint));
      if (Number.isFinite(ms) && collector.wants({ ms, name, service: entry.service })) {
        found.push({ entry, position: { ms, name } });
      }
    }
    found.sort((a, b) => comparePositions(a.position, b.position));
    for (const { entry, position } of found) {
      const done = collector.add(position, entry);
      if (done) return done;
    }
    return collector.finish();
  }

  /** Keeps an entry's file name by job id, the least recently found dropped past KEPT_NAMES. */
  private rememberName(key: string, name: string): void {
    this.entryNames.delete(key);
    this.entryNames.set(key, name);
    if (this.entryNames.size > KEPT_NAMES)
      this.entryNames.delete(this.entryNames.keys().next().value as string);
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

  /**
   * Points the job id's index at `file` before the entry there holds the id (so that an id is never held
   * without its index), unless it already names another entry that holds the id: a job id names one job.
   */
  private async claimIndex(entry: LedgerEntry, file: string): Promise<void> {
    if (!entry.id) return;
    const current = this.indexedName(entry.service, entry.id);
    const name = path.basename(file);
    if (current === name) return;
    if (current !== undefined) {
      const holder = await readEntry(path.join(this.paths.serviceDir(entry.service), current));
      if (holder?.id === entry.id) return;
    }
    await this.writeIndex(entry, file);
  }

  private async writeIndex(entry: LedgerEntry, file: string): Promise<void> {
    if (!entry.id) return;
    const index = this.paths.indexFile(entry.service, entry.id);
    await mkdir(path.dirname(index), { recursive: true, mode: 0o700 });
    await writeSmallFileAtomic(index, path.basename(file), { fsync: false });
  }
}

/** Job ids whose entry file name is kept in memory (a lookup past them reads the id index, one small file). */
const KEPT_NAMES = 4_000;

function compareDesc(a: string, b: string): number {
  return a < b ? 1 : a > b ? -1 : 0;
}
