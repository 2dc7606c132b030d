/**
 * Pages and days of the file store, read through its journals (`entry-journals.ts`): the newest entries
 * walk the created journals back from today and read only the entries they show; the entries written
 * since a time read only the written journals of the days since. Each entry is read through the listing's
 * stat-checked cache, so an entry edited by hand or rewritten by another process just before is seen as it
 * is now.
 *
 * The order is the creation time (as epoch ms), then the entry's file name: unique, and fixed once an
 * entry exists, which is what lets a cursor (the position of a page's last entry) go on where the page
 * ended while entries are added.
 */
import path from 'node:path';
import { checkService, type EntryPaths } from './entry-files.js';
import {
  type CreatedLine,
  comparePositions,
  type EntryJournals,
  NOTE_EVERY_MS,
  type Position,
  utcDayOf,
} from './entry-journals.js';
import {
  invalidCursor,
  type LedgerEntry,
  type LedgerPage,
  type LedgerPageOptions,
  statusWanted,
} from './job-ledger.js';

/**
 * With a status filter, a page examines at most this many entries and then ends with a cursor, however
 * few matched: a filter that matches little (the running jobs of a year) costs each call the same.
 */
export const MAX_EXAMINED = 2_000;
const CURSOR = /^f1 (\d{1,16}) ([0-9a-f]{64}\.json)$/;

export type { Position } from './entry-journals.js';

type ReadEntry = (file: string) => LedgerEntry | undefined | Promise<LedgerEntry | undefined>;

export function encodeCursor(position: Position): string {
  return Buffer.from(`f1 ${position.ms} ${position.name}`).toString('base64url');
}

export function decodeCursor(cursor: string): Position {
  const match = CURSOR.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match?.[1] || !match[2]) throw invalidCursor();
  return { ms: Number(match[1]), name: match[2] };
}

/** Whether `line` comes after `position` in the newest-first order. */
export function isAfter(line: Position, position: Position): boolean {
  return line.ms < position.ms || (line.ms === position.ms && line.name < position.name);
}

export class EntryPages {
  constructor(
    private readonly paths: EntryPaths,
    private readonly journals: EntryJournals,
    private readonly read: ReadEntry,
  ) {}

  async page(options: LedgerPageOptions): Promise<LedgerPage> {
    const collector = new PageCollector(options);
    const after = collector.after;
    const services = options.services ? [...new Set(options.services)] : this.journals.services();
    const days = [
      ...new Set(services.flatMap((service) => this.journals.daysOf({ kind: 'created', service }))),
    ]
      .sort()
      .reverse();
    for (const day of days) {
      if (after && day > utcDayOf(after.ms)) continue;
      const lines = services.flatMap((service) => this.journals.created(service, day));
      if (services.length > 1) lines.sort(comparePositions);
      let previous: CreatedLine | undefined;
      for (const line of lines) {
        // The same line twice (a migration beside a writer) is one entry.
        if (previous?.ms === line.ms && previous.name === line.name) continue;
        previous = line;
        if (!collector.wants(line)) continue;
        const entry = await this.read(path.join(this.paths.serviceDir(line.service), line.name));
        // A line whose entry is gone, or holds another creation time, was not the insert that won.
        if (!entry || entry.service !== line.service || Date.parse(entry.createdAt) !== line.ms) continue;
        const done = collector.add(line, entry);
        if (done) return done;
      }
    }
    return collector.finish();
  }

  /**
   * The entries written at or after `since` (epoch ms), of `service` or of all; in no particular order.
   * Every write has a note at most NOTE_EVERY_MS older than it, made with the clock that stamped the
   * entry's `updatedAt`, so the notes from `since` minus that on name every such entry; each is then read
   * and kept by its own `updatedAt`.
   */
  async since(since: number, service: string | undefined): Promise<LedgerEntry[]> {
    const from = since - NOTE_EVERY_MS;
    const firstDay = utcDayOf(from);
    const seen = new Set<string>();
    const entries: LedgerEntry[] = [];
    for (const day of this.journals.daysOf({ kind: 'written' })) {
      if (day < firstDay) break;
      for (const line of this.journals.written(day)) {
        if (line.ms < from || (service !== undefined && line.service !== service)) continue;
        const file = path.join(this.paths.serviceDir(line.service), line.name);
        if (seen.has(file)) continue;
        seen.add(file);
        const entry = await this.read(file);
        if (entry && entry.service === line.service && Date.parse(entry.updatedAt) >= since)
          entries.push(entry);
      }
    }
    return entries;
  }
}

/**
 * What one page has gathered: the wanted entries up to the limit, and whether one more exists (then the
 * page has a cursor). Also serves the listing without journals, which hands it entries in the same order.
 */
export class PageCollector {
  readonly after: Position | undefined;
  private readonly services: Set<string> | undefined;
  private readonly limit: number;
  private readonly filtered: boolean;
  private readonly entries: LedgerEntry[] = [];
  private lastShown: Position | undefined;
  private examined = 0;

  constructor(private readonly options: LedgerPageOptions) {
    this.after = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
    this.services = options.services ? new Set(options.services.map(checkService)) : undefined;
    this.limit = Math.max(0, Math.floor(Number.isFinite(options.limit) ? options.limit : 0));
    this.filtered = options.statuses !== undefined || options.excludeStatuses !== undefined;
  }

  /** Whether an entry at this position, of this service, can belong on the page (before reading it). */
  wants(line: Position & { service: string }): boolean {
    return (!this.after || isAfter(line, this.after)) && (!this.services || this.services.has(line.service));
  }

  /** Adds an entry read at `position`; the finished page once nothing more is to be read. */
  add(position: Position, entry: LedgerEntry): LedgerPage | undefined {
    if (statusWanted(entry.lastStatus, this.options)) {
      if (this.entries.length === this.limit) return this.finish(this.lastShown);
      this.entries.push(entry);
      this.lastShown = position;
    }
    this.examined++;
    if (this.filtered && this.examined >= MAX_EXAMINED) return this.finish(position);
    return undefined;
  }

  finish(next?: Position): LedgerPage {
    return next ? { entries: this.entries, nextCursor: encodeCursor(next) } : { entries: this.entries };
  }
}
