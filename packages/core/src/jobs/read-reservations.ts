/**
 * Read reservations: before a status read is sent, the process that sends it writes in the job's ledger
 * entry the time of the read and the earliest time of the next one (the interval or the job's Retry-After
 * floor, and a slack), as a compare-and-set on the entry's revision. Of several processes exactly one
 * reserves a read; the others see the reservation and wait. A reader that dies mid-read holds the others
 * off for that one interval only.
 *
 * The slack: a read reserved in the ledger must be sent within it, and the next read of any other process
 * comes that much later than one interval after the reservation, so the reads of two processes are always
 * at least one interval apart, however slowly the ledger answered. A read not sent in time is reserved
 * again with twice the slack (up to MAX_RESERVATION_SLACK_MS), so a slow ledger delays reads but never
 * stops them.
 */
import type { JobLedger, LedgerEntry } from '../ledger/create-job-ledger.js';
import { describeError, type JobRecords } from './job-records.js';
import type { JobRef, ReadSchedule } from './read-schedule.js';

export const RESERVATION_SLACK_MS = 500;
export const MAX_RESERVATION_SLACK_MS = 8_000;

/**
 * `reserved`: send the read now (also when there is no ledger to reserve it in, or the ledger failed).
 * `lost`: another process wrote the entry since it was looked at; look again. `late`: reserved, but too
 * late to send the read within the slack; look again and reserve anew.
 */
export type ReservationResult = 'reserved' | 'lost' | 'late';

export interface ReserveReadOptions {
  job: JobRef;
  /** The job's entry as last seen: the reservation is written only at its revision. */
  entry: LedgerEntry | undefined;
  sentAt: number;
  intervalMs: number;
  slackMs: number;
}

/** A reservation written for a read that has not been noted yet: the entry as written, and its next-read time. */
export interface UnsettledReservation {
  entry: LedgerEntry;
  nextReadAt: number;
}

export class ReadReservations {
  private readonly unsettled = new Map<string, UnsettledReservation>();

  constructor(
    private readonly options: {
      ledger: JobLedger | undefined;
      schedule: ReadSchedule;
      records: JobRecords;
      now: () => number;
    },
  ) {}

  async reserve({ job, entry, sentAt, intervalMs, slackMs }: ReserveReadOptions): Promise<ReservationResult> {
    const { ledger, schedule, records, now } = this.options;
    if (!ledger || !entry?.id) return 'reserved';
    const reserved = { service: job.service, id: entry.id };
    // The job's floor holds for this read too: the reservation says so at once, before the answer can.
    const nextReadAt = sentAt + Math.max(intervalMs, schedule.floorOf(reserved)) + slackMs;
    // Known here as this process's reservation before it is written: another caller's look at the ledger
    // may find the write before the answer to it reaches this one (a database pool has several
    // connections), and must join this read, not wait it out (or give up) as another process's.
    schedule.addOwnReservation(reserved, nextReadAt);
    try {
      // Not durable where the store can say so (PostgreSQL): a reservation only spaces reads, and one lost
      // in a crash of the database lets one read after it come early; the job's id, receipt and status stay
      // as durably written before. It is the one ledger write of a status read that changed nothing.
      const written = await ledger.compareAndSet(
        job.service,
        entry.fingerprint,
        entry.revision,
        { lastReadAt: new Date(sentAt).toISOString(), nextReadAt: new Date(nextReadAt).toISOString() },
        { durable: false },
      );
      if (!written) {
        schedule.dropOwnReservation(reserved, nextReadAt);
        schedule.forgetEntry(reserved);
        return 'lost';
      }
      schedule.rememberEntry(reserved, written);
      if (now() > sentAt + slackMs) return 'late';
      this.unsettled.set(keyOf(reserved), { entry: written, nextReadAt });
      return 'reserved';
    } catch (error) {
      records.warn(`could not update the job ledger at ${ledger.location}: ${describeError(error)}`);
      return 'reserved';
    }
  }

  /** The reservation of the read just answered, if this process wrote one; it is settled by this call. */
  settle(job: JobRef): UnsettledReservation | undefined {
    const key = keyOf(job);
    const reservation = this.unsettled.get(key);
    this.unsettled.delete(key);
    return reservation;
  }

  /**
   * Nobody waits for the reserved read any more; it was reserved all the same (it may have been sent), so
   * the others keep to the interval it set.
   */
  abandon(job: JobRef): void {
    this.unsettled.delete(keyOf(job));
  }
}

function keyOf(job: JobRef): string {
  return `${job.service}\n${job.id}`;
}
