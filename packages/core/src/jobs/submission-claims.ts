/**
 * Claims on submissions: before anything is uploaded or paid, the submitting process writes its claim in
 * the request's ledger entry. An identical request in another process finds the claim and waits for that
 * job (within its own deadline) instead of paying again; a claim whose owner died is taken over; a
 * recorded job is resumed instead of resubmitted; a claim that cannot be written refuses the submission
 * before anything is paid. A claim is renewed while its submission runs and released when it ends.
 */
import {
  PollingTimeoutError,
  SubmissionInProgressError,
  UncertainSubmissionError,
} from '../errors/polymodal-error.js';
import type { JobLedger, LedgerEntry, LedgerPatch, PendingSubmission } from '../ledger/create-job-ledger.js';
import type { SleepFunction } from '../util/sleep.js';
import type { ClaimLease } from './claim-lease.js';
import type { StartedJob, StartJobOptions } from './job-engine.js';
import { describeError, type JobRecords } from './job-records.js';
import { parseLedgerTime } from './parse-ledger-time.js';
import { isTransientReadError } from './poll-job.js';
import type { ReadSchedule } from './read-schedule.js';
import { SUBMITTING, UNKNOWN_OUTCOME } from './submission-outcome.js';

/** How often a caller waiting on another process's claim looks at the ledger again. */
const CLAIM_CHECK_MS = 250;
/** How long a resume check may take when the call gives no deadline. */
const RESUME_CHECK_MS = 60_000;

export interface SubmissionClaimsParts {
  ledger: JobLedger | undefined;
  lease: ClaimLease;
  records: JobRecords;
  schedule: ReadSchedule;
  now: () => number;
  sleep: SleepFunction;
}

/** A claimed submission (the entry under this process's claim, and the entry as it was before), or a job to resume. */
export type ClaimOutcome =
  | { resumed: StartedJob }
  | { entry: LedgerEntry | undefined; previous: LedgerEntry | undefined };

export class SubmissionClaims {
  constructor(private readonly parts: SubmissionClaimsParts) {}

  /**
   * Waits until no other process holds a live claim on this request, then claims it (and takes over a
   * claim whose owner died). Returns the claimed entry, or a recorded job to resume.
   */
  async claim(options: StartJobOptions, signal: AbortSignal): Promise<ClaimOutcome> {
    const { ledger, lease, records, now, sleep } = this.parts;
    if (!ledger) return { entry: undefined, previous: undefined };
    let waited = false;
    /** A recorded job found gone or not worth resuming in this call (not checked again). */
    let passedOver: string | undefined;
    for (;;) {
      signal.throwIfAborted();
      const entry = await ledger
        .findByFingerprint(options.service, options.fingerprint)
        .catch((error: unknown) => Promise.reject(records.refusal(error)));
      if (entry && lease.heldByAnother(entry.claim)) {
        // Another process is submitting this very request: wait for its job rather than pay again.
        if (options.deadline !== undefined && now() + CLAIM_CHECK_MS > options.deadline) {
          throw new SubmissionInProgressError({ service: options.service, since: entry.updatedAt });
        }
        waited = true;
        await sleep(CLAIM_CHECK_MS, signal);
        continue;
      }
      if (entry?.id && entry.id !== passedOver && this.worthResuming(options, entry.lastStatus)) {
        const status = await this.currentStatus(options, { ...entry, id: entry.id }, signal);
        if (status !== undefined && this.worthResuming(options, status)) {
          return { resumed: { id: entry.id, status, resumed: true, joined: waited } };
        }
        // Gone (404) or no longer worth resuming: start over in this entry. Reading the status wrote to
        // the entry, so it is read again before it is claimed.
        passedOver = entry.id;
        continue;
      }
      refuseUncertain(options, entry);
      const claimed = await this.write(options, entry).catch((error: unknown) =>
        Promise.reject(records.refusal(error)),
      );
      if (claimed) return claimed;
    }
  }

  /** Renews this process's claim on the request for another lease (a failure is logged). */
  async renew(service: string, fingerprint: string): Promise<void> {
    const { ledger, lease, records } = this.parts;
    if (!ledger) return;
    try {
      const entry = await ledger.findByFingerprint(service, fingerprint);
      if (entry?.claim?.owner !== lease.owner) return;
      await ledger.compareAndSet(service, fingerprint, entry.revision, { claim: lease.fresh() });
    } catch (error) {
      records.warn(`could not renew a claim in the job ledger: ${describeError(error)}`);
    }
  }

  /** Renews the claim every third of its lease until the returned function is called. */
  keepRenewed(service: string, fingerprint: string): () => void {
    const timer = setInterval(() => {
      void this.renew(service, fingerprint);
    }, this.parts.lease.leaseMs / 3);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Releases the claim of a submission that failed, writing what it left (a failure is logged). */
  async release(service: string, fingerprint: string, patch: LedgerPatch): Promise<void> {
    const { ledger, records } = this.parts;
    try {
      await ledger?.update(service, fingerprint, { ...patch, claim: null });
    } catch (error) {
      records.warn(`could not release a claim in the job ledger: ${describeError(error)}`);
    }
  }

  /** Releases the claim of a submission that created its job, recording the job (a failure is logged). */
  async handOver(
    service: string,
    fingerprint: string,
    job: { id: string; patch: LedgerPatch },
  ): Promise<void> {
    const { ledger, records } = this.parts;
    try {
      await ledger?.update(service, fingerprint, { ...job.patch, claim: null });
    } catch (error) {
      // The job exists and is paid for: its id is the answer, even if it could not be written down.
      records.warn(
        `${service} job ${job.id} was started but could not be recorded in the job ledger: ${describeError(error)}`,
      );
    }
  }

  private worthResuming(options: StartJobOptions, status: string): boolean {
    return !options.forceNew && (options.reusable?.(status) ?? true);
  }

  /**
   * The live status of a recorded job before it is resumed (undefined when it is gone). A job read (by any
   * process) so recently that it may not be read again yet is taken at that read's status: it is as
   * current as the platform lets anyone know, so the check does not wait for another read. A platform that
   * cannot answer right now (503, 429, a reset) leaves the recorded status the answer: paying again would
   * be the one wrong one.
   */
  private async currentStatus(
    options: StartJobOptions,
    entry: LedgerEntry & { id: string },
    signal: AbortSignal,
  ): Promise<string | undefined> {
    const { schedule, now } = this.parts;
    const changedHere = schedule.changedAt({ service: options.service, id: entry.id });
    const readRecently =
      entry.lastReadAt != null &&
      parseLedgerTime(entry.nextReadAt) > now() &&
      changedHere < parseLedgerTime(entry.lastReadAt);
    if (!options.current || readRecently) return entry.lastStatus;
    try {
      return await options.current(entry.id, {
        signal,
        deadline: options.deadline ?? now() + RESUME_CHECK_MS,
      });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (!isTransientReadError(error) && !PollingTimeoutError.isInstance(error)) throw error;
      return entry.lastStatus;
    }
  }

  /** Writes this process's claim at the entry's revision; undefined when another write came first. */
  private async write(
    options: StartJobOptions,
    entry: LedgerEntry | undefined,
  ): Promise<ClaimOutcome | undefined> {
    const { ledger, lease } = this.parts;
    if (!ledger) return undefined;
    const { service, fingerprint } = options;
    const fresh = {
      lastStatus: SUBMITTING,
      claim: lease.fresh(),
      ...(options.title === undefined ? {} : { title: options.title }),
      ...(options.request ? { request: options.request } : {}),
    };
    if (!entry) {
      const inserted = await ledger.insert({ service, fingerprint, id: null, ...fresh });
      return inserted.inserted ? { entry: inserted.entry, previous: undefined } : undefined;
    }
    // Replacing a recorded job (asked anew, or gone, or not worth resuming): the job stays recorded exactly
    // as it is (listed, resumable, counted) until the new one exists.
    const patch =
      entry.id === null ? fresh : { claim: lease.fresh(), pending: this.replacement(options, entry) };
    const claimed = await ledger.compareAndSet(service, fingerprint, entry.revision, patch);
    return claimed ? { entry: claimed, previous: entry } : undefined;
  }

  /**
   * A submission replacing the entry's recorded job. Only a failure that proves nothing was created
   * forgets the attempt; a receipt an interrupted earlier replacement left is kept, since sending it again
   * yields the job it may have created.
   */
  private replacement(options: StartJobOptions, entry: LedgerEntry): PendingSubmission {
    const earlier = entry.pending ?? undefined;
    return {
      lastStatus: SUBMITTING,
      since: new Date(this.parts.now()).toISOString(),
      ...(earlier?.receipt
        ? { receipt: earlier.receipt, receiptIssuedAt: earlier.receiptIssuedAt ?? null }
        : {}),
      ...(earlier?.data ? { data: earlier.data } : {}),
      ...(options.title === undefined ? {} : { title: options.title }),
      ...(options.request ? { request: options.request } : {}),
    };
  }
}

/**
 * Refuses an earlier attempt at this submission (or at replacing its recorded job) that may have sent it,
 * unless the service recognises a repeat or the caller allows it.
 */
function refuseUncertain(options: StartJobOptions, entry: LedgerEntry | undefined): void {
  if (!entry || options.resendable || options.allowResubmit) return;
  // Asking for a new job on purpose accepts that the interrupted one may exist too.
  if (options.forceNew) return;
  const interrupted = entry.id === null ? entry.lastStatus : entry.pending?.lastStatus;
  if (interrupted !== SUBMITTING && interrupted !== UNKNOWN_OUTCOME) return;
  throw new UncertainSubmissionError({
    service: options.service,
    since: entry.id === null ? entry.updatedAt : (entry.pending?.since ?? entry.updatedAt),
    resubmitOption: options.resubmitOption ?? 'allowResubmit',
  });
}
