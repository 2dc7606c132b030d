/**
 * What one job-ledger entry counts against its tenant's daily budget, read from the entry alone (no
 * platform call), so that every process and replica sharing the ledger counts the same:
 *
 * - the credits the platform reported for the job once it says they were charged (core records them in
 *   `data` when it reads the job, tagged with the job id);
 * - otherwise, unless the job ended without a charge, the estimate recorded at submission
 *   (`request.creditReservation`), or the platform's figure when it is higher (its minimum is not
 *   published): running jobs, jobs of unknown outcome and submissions still uploading all count;
 * - nothing for a job that ended FAILED or CANCELLED, or a submission refused before it was sent: the
 *   platform charges once, on successful completion. A DELETED job counts, since it may have completed first.
 *
 * The day an entry counts on is the UTC day of its reservation (the submission), also when the platform
 * charges it after midnight: the budget bounds what is started per day. Entries without a reservation
 * (recorded by an older version, or services without a published price) count what the platform reported
 * for them, on the day they were created, or nothing.
 */
import type { LedgerEntry } from '@polymodal/core/ledger';
import { z } from 'zod';
import type { CreditEstimate } from './estimate-meeting-credits.js';
import { utcDay } from './utc-day.js';

/** The estimate recorded in a ledger entry when its submission was admitted. */
export interface CreditReservation {
  /** UTC day (`YYYY-MM-DD`) the submission was admitted on. */
  day: string;
  credits: number;
  basis: string;
  /** Credits of an earlier job of the same entry, replaced by this one (force) on the same day. */
  earlier?: number | undefined;
}

export const RESERVATION_FIELD = 'creditReservation';

const reservationSchema = z.object({
  day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  credits: z.number().finite().min(0),
  basis: z.string(),
  earlier: z.number().finite().min(0).optional(),
});

const reportedSchema = z.object({
  jobId: z.string(),
  credits: z.number().finite().min(0),
  creditsCharged: z.boolean().optional(),
});

/** Statuses in which the platform has not charged and never will for this job. */
const UNCHARGED = new Set(['FAILED', 'CANCELLED', 'NOT_CREATED']);

export interface EntryCredits {
  /** UTC day the credits count on. */
  day: string;
  /** Credits the platform reported as charged. */
  charged: number;
  /** Credits counted for work that may still be charged (estimate, or the platform's figure). */
  reserved: number;
}

export function readReservation(entry: LedgerEntry | undefined): CreditReservation | undefined {
  const parsed = reservationSchema.safeParse(entry?.request?.[RESERVATION_FIELD]);
  return parsed.success ? parsed.data : undefined;
}

/** The credits the platform reported for the entry's current job, when known. */
export function reportedCredits(entry: LedgerEntry): { credits: number; charged: boolean } | undefined {
  const parsed = reportedSchema.safeParse(entry.data);
  // An entry started anew keeps the previous job's figures until its new job is read.
  if (!parsed.success || entry.id === null || parsed.data.jobId !== entry.id) return undefined;
  return { credits: parsed.data.credits, charged: parsed.data.creditsCharged === true };
}

/**
 * Credits of entries that cannot change: the stores freeze the entries they keep between lists and hand
 * out again while unchanged, so a ledger's hundred entries are not parsed again on every `list_jobs` and
 * budget check (issue 24). A changed entry is a new object.
 */
const creditsOfFrozen = new WeakMap<LedgerEntry, { own: EntryCredits; pending: EntryCredits | undefined }>();

function remembered(
  entry: LedgerEntry,
): { own: EntryCredits; pending: EntryCredits | undefined } | undefined {
  if (!Object.isFrozen(entry)) return undefined;
  let credits = creditsOfFrozen.get(entry);
  if (!credits) {
    credits = Object.freeze({
      own: Object.freeze(countEntry(entry)),
      pending: freezeIfAny(countPending(entry)),
    });
    creditsOfFrozen.set(entry, credits);
  }
  return credits;
}

const freezeIfAny = <T extends object>(value: T | undefined): T | undefined =>
  value === undefined ? undefined : Object.freeze(value);

export function entryCredits(entry: LedgerEntry): EntryCredits {
  return remembered(entry)?.own ?? countEntry(entry);
}

function countEntry(entry: LedgerEntry): EntryCredits {
  const reservation = readReservation(entry);
  const day = reservation?.day ?? utcDay(Date.parse(entry.createdAt) || 0);
  const earlier = reservation?.earlier ?? 0;
  const reported = reportedCredits(entry);
  if (reported?.charged) return { day, charged: reported.credits + earlier, reserved: 0 };
  if (UNCHARGED.has(entry.lastStatus)) return { day, charged: earlier, reserved: 0 };
  return { day, charged: earlier, reserved: Math.max(reservation?.credits ?? 0, reported?.credits ?? 0) };
}

/**
 * What a submission replacing the entry's recorded job (`pending`) counts until its job exists: its own
 * estimate, on the day it was admitted, unless it proved to have sent nothing. The recorded job keeps
 * counting as `entryCredits` says; the replacement's `earlier` (that job's credits) is not added again.
 */
export function pendingCredits(entry: LedgerEntry): EntryCredits | undefined {
  const known = remembered(entry);
  return known ? known.pending : countPending(entry);
}

function countPending(entry: LedgerEntry): EntryCredits | undefined {
  const pending = entry.pending;
  if (!pending || pending.lastStatus === 'NOT_CREATED') return undefined;
  const parsed = reservationSchema.safeParse(pending.request?.[RESERVATION_FIELD]);
  if (!parsed.success) return undefined;
  return { day: parsed.data.day, charged: 0, reserved: parsed.data.credits };
}

/**
 * What restarting the entry's job would cost, from the entry alone: the platform's figure for the job when
 * it reported one, or the estimate recorded at submission, whichever is higher (as `entryCredits` counts
 * them); undefined when the entry holds neither.
 */
export function restartCredits(entry: LedgerEntry | undefined): CreditEstimate | undefined {
  if (!entry) return undefined;
  const reservation = readReservation(entry);
  const reported = reportedCredits(entry);
  if (reported && reported.credits >= (reservation?.credits ?? 0)) {
    return { credits: reported.credits, basis: "the platform's price for this recording" };
  }
  return reservation ? { credits: reservation.credits, basis: reservation.basis } : undefined;
}
