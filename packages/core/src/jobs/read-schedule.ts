/**
 * The read schedule: for each job this process reads, when its last read ended, when it may be read next,
 * the longest pause the platform asked for between two reads (its Retry-After floor), the reads this
 * process has reserved in the ledger, and the last body read. The ledger holds the same times for other
 * processes and for a restart; `timing` puts the two together.
 */
import type { LedgerEntry } from '../ledger/create-job-ledger.js';
import { parseLedgerTime } from './parse-ledger-time.js';

/** Remembered bodies older than this are dropped (they are only reused within one interval). */
const MEMORY_MS = 120_000;
/** How often, at most, the jobs not read for MEMORY_MS are forgotten. */
const SWEEP_EVERY_MS = 1_000;

/** A job of a service, as the platform names it. */
export interface JobRef {
  service: string;
  id: string;
}

/** When the next read of a job may be sent, from this process's memory and the job's ledger entry. */
export interface ReadTiming {
  /** When the last read ended (0 when none is known). */
  lastReadAt: number;
  /** The earliest time of the next read (the interval, a Retry-After, or another process's reservation). */
  nextReadAt: number;
  /** The job's largest Retry-After: no read comes sooner after the one before. */
  floorMs: number;
  /** Another process reserved the next read: the ledger, not this process, sets its time. */
  setByAnotherProcess: boolean;
}

/** A read as the schedule noted it. */
export interface NotedRead {
  lastReadAt: number;
  nextReadAt: number;
  floorMs: number;
}

interface JobReads {
  /** When the last read (or failed read) ended here; 0 until one has. */
  lastReadAt: number;
  nextReadAt: number;
  floorMs: number;
  body?: unknown;
  bodyAt?: number;
  /**
   * The next-read times this process wrote (or is writing) when it reserved reads in the ledger, while
   * they are ahead: meant for the other processes (they carry the reservation's slack), so this one, which
   * knows when its reads were answered, goes by `nextReadAt`. More than the last one: a reservation too slow
   * to send its read is made again, and a look at the ledger may still find the first.
   */
  ownReservations: number[];
  /**
   * The job's ledger entry as this process last wrote it (a reservation, or a status it recorded). The next
   * read's look at the ledger uses it instead of reading the entry again. It cannot mislead: a reservation
   * is written only at the entry's revision, so if another write came in between, the reservation is
   * refused, this is forgotten, and the next look reads the ledger.
   */
  entry?: LedgerEntry;
}

export class ReadSchedule {
  private readonly jobs = new Map<string, JobReads>();
  /** Each service's minimum interval between two reads of a job, as the last poll of it was given. */
  private readonly intervals = new Map<string, number>();
  /** When this process changed a job (cancel, retry, rename…), so that its recorded status is not trusted. */
  private readonly changes = new Map<string, number>();
  private sweptAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly now: () => number) {}

  setInterval(service: string, intervalMs: number): void {
    this.intervals.set(service, intervalMs);
  }

  /**
   * Notes a read that ended now: the next one comes no sooner than the service's interval and the job's
   * floor, which a Retry-After may raise, and never sooner than a time noted before (a later note must not
   * shorten the wait that the ledger tells other processes, nor a restarted one).
   */
  readEnded(job: JobRef, read: { retryAfterMs?: number | undefined; body?: unknown }): NotedRead {
    const at = this.now();
    const reads = this.reads(job);
    reads.floorMs = Math.max(reads.floorMs, read.retryAfterMs ?? 0);
    const pauseMs = Math.max(reads.floorMs, this.intervals.get(job.service) ?? 0);
    reads.nextReadAt = Math.max(at + pauseMs, reads.nextReadAt);
    reads.lastReadAt = at;
    if (read.body !== undefined) {
      reads.body = read.body;
      reads.bodyAt = at;
    }
    this.sweep();
    return { lastReadAt: at, nextReadAt: reads.nextReadAt, floorMs: reads.floorMs };
  }

  /**
   * The job's timing from this memory and `entry` (as the ledger or this process's last write has it). A
   * next-read time the ledger holds from a reservation of this process is as this process left it: its
   * memory knows better (and of a reservation whose read was not sent, that nothing was read). A floor
   * the entry holds is remembered from here on.
   */
  timing(job: JobRef, entry: LedgerEntry | undefined): ReadTiming {
    const reads = this.jobs.get(keyOf(job));
    const written = parseLedgerTime(entry?.nextReadAt);
    const own = reads?.ownReservations.includes(written) ?? false;
    const ledgerNextAt = own ? 0 : written;
    // The floor another process (or this one before a restart) learnt holds here too.
    const floorMs = Math.max(reads?.floorMs ?? 0, entry?.retryAfterFloorMs ?? 0);
    if (floorMs > 0) this.reads(job).floorMs = floorMs;
    return {
      lastReadAt: Math.max(reads?.lastReadAt ?? 0, own ? 0 : parseLedgerTime(entry?.lastReadAt)),
      nextReadAt: Math.max(reads?.nextReadAt ?? 0, ledgerNextAt),
      floorMs,
      setByAnotherProcess: ledgerNextAt > (reads?.nextReadAt ?? 0),
    };
  }

  floorOf(job: JobRef): number {
    return this.jobs.get(keyOf(job))?.floorMs ?? 0;
  }

  /** When the last read of the job ended here (-Infinity when none did). */
  lastReadEndedAt(job: JobRef): number {
    return this.jobs.get(keyOf(job))?.lastReadAt ?? Number.NEGATIVE_INFINITY;
  }

  /** The body of the last read, if one was remembered after `since`. */
  bodyReadAfter(job: JobRef, since: number): { body: unknown; at: number } | undefined {
    const reads = this.jobs.get(keyOf(job));
    const at = reads?.bodyAt ?? 0;
    if (reads?.body === undefined || at <= since) return undefined;
    return { body: reads.body, at };
  }

  /**
   * Notes a next-read time this process writes when it reserves a read; times that have come are dropped,
   * since they hold nobody off any more.
   */
  addOwnReservation(job: JobRef, nextReadAt: number): void {
    const reads = this.reads(job);
    reads.ownReservations = this.comingReservations(reads, nextReadAt);
    reads.ownReservations.push(nextReadAt);
  }

  /** Forgets a reservation another writer's write came before. */
  dropOwnReservation(job: JobRef, nextReadAt: number): void {
    const reads = this.reads(job);
    reads.ownReservations = this.comingReservations(reads, nextReadAt);
  }

  /** The entry as this process last wrote it, while the job is remembered. */
  entryOf(job: JobRef): LedgerEntry | undefined {
    return this.jobs.get(keyOf(job))?.entry;
  }

  rememberEntry(job: JobRef, entry: LedgerEntry): void {
    const reads = this.jobs.get(keyOf(job));
    if (reads) reads.entry = entry;
  }

  forgetEntry(job: JobRef): void {
    const reads = this.jobs.get(keyOf(job));
    if (reads) delete reads.entry;
  }

  /** The job was changed (cancel, retry, rename…): a remembered body and its recorded status are out of date. */
  invalidate(job: JobRef): void {
    const reads = this.jobs.get(keyOf(job));
    if (reads) {
      delete reads.body;
      delete reads.bodyAt;
    }
    const now = this.now();
    this.changes.set(keyOf(job), now);
    for (const [key, at] of this.changes) if (now - at > MEMORY_MS) this.changes.delete(key);
  }

  /** When this process last changed the job (0 when it did not lately). */
  changedAt(job: JobRef): number {
    return this.changes.get(keyOf(job)) ?? 0;
  }

  private reads(job: JobRef): JobReads {
    const key = keyOf(job);
    let reads = this.jobs.get(key);
    if (!reads) {
      reads = { lastReadAt: 0, nextReadAt: 0, floorMs: 0, ownReservations: [] };
      this.jobs.set(key, reads);
    }
    return reads;
  }

  private comingReservations(reads: JobReads, except: number): number[] {
    const now = this.now();
    return reads.ownReservations.filter((time) => time > now && time !== except);
  }

  /**
   * Bodies can be megabytes (a two-hour transcript); they are only useful for one interval. A read
   * reserved and not answered yet is kept: its reservation tells this process's callers that the read in
   * flight is their own to join, not another process's to wait out. Swept at most once a second, not on
   * every read: the memory holds every job read in the last two minutes.
   */
  private sweep(): void {
    const now = this.now();
    if (now - this.sweptAt < SWEEP_EVERY_MS) return;
    this.sweptAt = now;
    for (const [key, reads] of this.jobs) {
      if (now - Math.max(reads.lastReadAt, ...reads.ownReservations) > MEMORY_MS) this.jobs.delete(key);
    }
  }
}

function keyOf(job: JobRef): string {
  return `${job.service}\n${job.id}`;
}
