/**
 * Listing the file store's entries without reading every file on every list. What a list parsed is kept
 * per entry file with the file's stat (device, inode, size, mtime and ctime in ns): every write renames or
 * links a new file into place, so a changed entry has a new inode and a new stamp and is read again; an
 * unchanged one costs a stat instead of an open, a read and a parse. Directory listings and stats are
 * synchronous, like the entry reads: a ledger of 10,000 entries blocks a list for a few ms.
 */
import { type BigIntStats, statSync } from 'node:fs';
import path from 'node:path';
import {
  deepFreeze,
  type EntryPaths,
  entryFileNames,
  isMissing,
  namesIn,
  readEntry,
  SERVICE_NAME,
} from './entry-files.js';
import type { LedgerEntry } from './job-ledger.js';

/**
 * How much older than `updatedSince` an entry file's mtime may be and still be read: the file's mtime comes
 * from the file system's clock, `updatedAt` from the writer's, and the two may disagree a little (a network
 * file system, a clock step). Within this, files are read and the entries' own `updatedAt` decides.
 */
const MTIME_SLACK_MS = 10 * 60 * 1000;
/**
 * An entry written less than this long ago (by its own `updatedAt`) is not kept: the stat stamp of a file
 * written twice within one tick of the file system's clock could, with an inode reused, match an older
 * version's (git's "racy" case), so only entries that have been still for a while are trusted.
 */
const RECENT_WRITE_MS = 2_000;
/**
 * Parsed entries kept at most (the least recently listed are dropped first): what a server holds of the
 * ledger is bounded by what it shows, whatever the ledger's size. Pages and days are far smaller.
 */
const KEPT_ENTRIES = 4_000;

export class EntryListing {
  /** What was last parsed per entry file, with the stat stamp it was read under. */
  private readonly kept = new Map<string, { stamp: string; entry: LedgerEntry | undefined }>();

  constructor(private readonly paths: EntryPaths) {}

  /** The names of the services that have entries. */
  services(): string[] {
    return namesIn(path.join(this.paths.dir, 'entries')).filter((name) => SERVICE_NAME.test(name));
  }

  /**
   * The service's entries; with `since` (epoch ms), only those updated at or after it. Every write replaces
   * an entry's file, so a file last modified more than MTIME_SLACK_MS before `since` holds an older entry and
   * is not read (a stat instead of a read and a parse); the rest are read and kept by their `updatedAt`.
   */
  async service(service: string, since?: number): Promise<LedgerEntry[]> {
    const directory = this.paths.serviceDir(service);
    const files = entryFileNames(directory).map((name) => path.join(directory, name));
    // Entries removed from the directory are forgotten.
    const present = new Set(files);
    for (const file of this.kept.keys()) {
      if (path.dirname(file) === directory && !present.has(file)) this.kept.delete(file);
    }
    const found = files.map((file) => this.entry(file, since));
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

  /** An entry file as it is now (stat-checked against what was parsed before). */
  read(file: string): LedgerEntry | undefined | Promise<LedgerEntry | undefined> {
    return this.entry(file, undefined);
  }

  /**
   * An entry file as a list reads it: `undefined` when it is gone or when it was last modified more than
   * MTIME_SLACK_MS before `since` (an older entry); the kept parse while its stamp holds; else a promise of
   * the entry read afresh (kept when it has been still for RECENT_WRITE_MS). Kept entries are frozen, since
   * every later list hands out the same objects.
   */
  private entry(
    file: string,
    since: number | undefined,
  ): LedgerEntry | undefined | Promise<LedgerEntry | undefined> {
    let stats: BigIntStats;
    try {
      stats = statSync(file, { bigint: true });
    } catch (error) {
      this.kept.delete(file);
      if (isMissing(error)) return undefined;
      throw error;
    }
    if (since !== undefined && Number(stats.mtimeMs) < since - MTIME_SLACK_MS) return undefined;
    const stamp = `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
    const kept = this.kept.get(file);
    if (kept?.stamp === stamp) {
      // Most recently used last, so that the oldest use is dropped first.
      this.kept.delete(file);
      this.kept.set(file, kept);
      return kept.entry;
    }
    return readEntry(file).then((entry) => {
      if (entry !== undefined && Date.now() - Date.parse(entry.updatedAt) >= RECENT_WRITE_MS) {
        this.kept.delete(file);
        this.kept.set(file, { stamp, entry: deepFreeze(entry) });
        if (this.kept.size > KEPT_ENTRIES) this.kept.delete(this.kept.keys().next().value as string);
      } else {
        this.kept.delete(file);
      }
      return entry;
    });
  }
}
