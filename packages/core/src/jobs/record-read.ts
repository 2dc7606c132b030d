/**
 * Recording a status read: the read schedule learns when it ended (and any pause the platform asked for),
 * and the ledger is told what other processes need — unless the read's reservation already said it all.
 * A read is noted once, where it was made, so the ledger tells other processes when they may read next.
 */
import type { LedgerEntry } from '../ledger/create-job-ledger.js';
import { canonicalJson } from '../ledger/fingerprint.js';
import type { ObservedRead } from './job-engine.js';
import type { JobRecords } from './job-records.js';
import type { ReadReservations, UnsettledReservation } from './read-reservations.js';
import type { JobRef, ReadSchedule } from './read-schedule.js';

export interface ReadRecorderParts {
  schedule: ReadSchedule;
  reservations: ReadReservations;
  records: JobRecords;
}

export async function recordRead(parts: ReadRecorderParts, job: JobRef, read: ObservedRead): Promise<void> {
  const { schedule, reservations, records } = parts;
  const noted = schedule.readEnded(job, read);
  const reservation = reservations.settle(job);
  if (reservation && reservationSaysAll(reservation, read, noted)) return;
  await records.record(job.service, job.id, {
    ...(read.status === undefined ? {} : { lastStatus: read.status }),
    ...read.patch,
    lastReadAt: new Date(noted.lastReadAt).toISOString(),
    nextReadAt: new Date(noted.nextReadAt).toISOString(),
    readingUntil: null,
    ...(noted.floorMs > 0 ? { retryAfterFloorMs: noted.floorMs } : {}),
  });
}

/**
 * Whether the reservation written before the read already says everything other processes need: the
 * answer changed nothing recorded (status, fields, the job's Retry-After floor) and asked for no pause
 * longer than the reservation holds them off.
 */
function reservationSaysAll(
  reservation: UnsettledReservation,
  read: ObservedRead,
  noted: { lastReadAt: number; floorMs: number },
): boolean {
  const { entry } = reservation;
  return (
    noted.lastReadAt + (read.retryAfterMs ?? 0) <= reservation.nextReadAt &&
    noted.floorMs <= (entry.retryAfterFloorMs ?? 0) &&
    (read.status === undefined || read.status === entry.lastStatus) &&
    Object.entries(read.patch ?? {}).every(
      ([field, value]) => canonicalJson(value) === canonicalJson(entry[field as keyof LedgerEntry]),
    )
  );
}
