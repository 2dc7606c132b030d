/**
 * The job engine: the one owner of "this job, its claim, its reads, its deadline", used by every service
 * client that starts paid work (meeting, catalog video, image-to-video, flashcards, speech synthesis,
 * reading score). It puts together one module per concept:
 *
 * - claims (`submission-claims.ts`, `claim-lease.ts`): a submission is claimed in the ledger before any
 *   byte is uploaded, joined or waited for instead of paid twice, taken over when its owner died;
 * - the read schedule (`read-schedule.ts`, `read-reservations.ts`): when a job may be read next, which
 *   process reads it, and the job's Retry-After floor, across calls, processes and restarts;
 * - the poll loop (`poll-loop.ts`, with its limits and pace as pure functions in `poll-deadlines.ts` and
 *   `poll-pace.ts`);
 * - recording (`job-records.ts`, `record-read.ts`, `observe-read.ts`): what a read or a submission writes
 *   to the ledger, and how ledger trouble is reported (once per reason, never hiding the platform's answer,
 *   except a claim, whose failure blocks the paid request).
 */
import { guardEvents } from '../telemetry/polymodal-events.js';
import { sleep as defaultSleep } from '../util/sleep.js';
import { ClaimLease, DEFAULT_CLAIM_LEASE_MS } from './claim-lease.js';
import type {
  JobEngine,
  JobEngineLogger,
  JobEngineOptions,
  ObservedRead,
  ObservedResponse,
  ObserveReadOptions,
} from './job-engine.js';
import { JobRecords } from './job-records.js';
import { observeRead } from './observe-read.js';
import { pollJob } from './poll-loop.js';
import { ReadReservations } from './read-reservations.js';
import { type JobRef, ReadSchedule } from './read-schedule.js';
import { recordRead } from './record-read.js';
import { createSingleFlight } from './single-flight.js';
import { startJob } from './start-job.js';
import { SubmissionClaims } from './submission-claims.js';

export function createJobEngine(options: JobEngineOptions = {}): JobEngine {
  const { ledger } = options;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const log: JobEngineLogger = options.log ?? {
    warn: (message) => process.stderr.write(`polymodal: ${message}\n`),
  };
  const events = guardEvents(options.events);
  const flights = createSingleFlight();
  const lease = new ClaimLease({ leaseMs: options.leaseMs ?? DEFAULT_CLAIM_LEASE_MS, now, random });
  const schedule = new ReadSchedule(now);
  const records = new JobRecords({ ledger, schedule, log, now, sleep });
  const reservations = new ReadReservations({ ledger, schedule, records, now });
  const claims = new SubmissionClaims({ ledger, lease, records, schedule, now, sleep });
  const noteRead = (job: JobRef, read: ObservedRead) =>
    recordRead({ schedule, reservations, records }, job, read);

  const observe = <R extends ObservedResponse>(options: ObserveReadOptions<R>): Promise<R> =>
    observeRead({ events, noteRead, now }, options);

  return {
    ledger,
    start: (start) => startJob({ ledger, claims, records, flights, events, now }, start),
    poll: (poll) => pollJob({ schedule, reservations, records, flights, noteRead, now, sleep, random }, poll),
    noteRead: (service, id, read) => noteRead({ service, id }, read),
    observe,
    invalidate: (service, id) => schedule.invalidate({ service, id }),
    record: (service, id, patch) => records.record(service, id, patch),
    find: (service, id) => records.find(service, id),
    warn: (message) => records.warn(message),
  };
}
