/**
 * One submission under its claim: the paid work (upload, create…) runs while the claim is renewed, records
 * its progress (a receipt) as it goes, and ends by handing the claim over to the job it created, or by
 * releasing it with what the failure proves (nothing created, or an unknown outcome that blocks a blind
 * repeat). A submission that replaces a recorded job keeps its progress beside the job until the new job
 * exists; only then does the new job take the entry over.
 */
import type { JobLedger, LedgerEntry, LedgerPatch, PendingSubmission } from '../ledger/create-job-ledger.js';
import type { StartedJob, StartJobOptions, SubmissionPatch } from './job-engine.js';
import type { JobRecords } from './job-records.js';
import type { SubmissionClaims } from './submission-claims.js';
import { NOT_CREATED, provesNotCreated, UNKNOWN_OUTCOME } from './submission-outcome.js';

export interface SubmissionParts {
  ledger: JobLedger | undefined;
  claims: SubmissionClaims;
  records: JobRecords;
}

export async function runSubmission(
  parts: SubmissionParts,
  options: StartJobOptions,
  signal: AbortSignal,
): Promise<StartedJob> {
  const claimed = await parts.claims.claim(options, signal);
  if ('resumed' in claimed) return claimed.resumed;
  const submission = new ClaimedSubmission(parts, options, claimed);
  const stopRenewing =
    parts.ledger && claimed.entry
      ? parts.claims.keepRenewed(options.service, options.fingerprint)
      : undefined;
  let started: { id: string; status: string };
  try {
    started = await options.submit(submission.context(signal));
  } catch (error) {
    stopRenewing?.();
    await submission.failed(error);
    throw error;
  }
  stopRenewing?.();
  await submission.created(started);
  return { ...started, resumed: false, joined: false };
}

/** A submission under this process's claim, and what it has recorded so far. */
class ClaimedSubmission {
  /** Set when this submission replaces a recorded job: its progress, kept beside the job until it exists. */
  private pending: PendingSubmission | undefined;
  /** What an interrupted earlier replacement left, kept when this one proves it created nothing. */
  private readonly before: PendingSubmission | undefined;

  constructor(
    private readonly parts: SubmissionParts,
    private readonly options: StartJobOptions,
    private readonly claimed: { entry: LedgerEntry | undefined; previous: LedgerEntry | undefined },
  ) {
    const { entry, previous } = claimed;
    this.pending = entry?.id !== null ? (entry?.pending ?? undefined) : undefined;
    this.before = previous?.pending ?? undefined;
  }

  context(signal: AbortSignal) {
    const { entry, previous } = this.claimed;
    return {
      entry: entry && this.pending ? asSubmission(entry, this.pending) : entry,
      previous: previous && this.before ? asSubmission(previous, this.before) : previous,
      signal,
      save: (patch: SubmissionPatch) => this.save(patch),
    };
  }

  /** Records progress of the submission before it goes on; throws (refusing the paid work) if it cannot. */
  private async save(patch: SubmissionPatch): Promise<void> {
    const { ledger, records } = this.parts;
    if (!ledger) return;
    const { service, fingerprint } = this.options;
    try {
      if (this.pending) {
        this.pending = { ...this.pending, ...patch };
        await ledger.update(service, fingerprint, { pending: this.pending });
      } else {
        await ledger.update(service, fingerprint, patch);
      }
    } catch (error) {
      throw records.refusal(error);
    }
  }

  async failed(error: unknown): Promise<void> {
    if (!this.parts.ledger || !this.claimed.entry) return;
    const outcome = provesNotCreated(error) ? NOT_CREATED : UNKNOWN_OUTCOME;
    const { pending, before } = this;
    const patch: LedgerPatch = pending
      ? // Nothing of this attempt can exist: what an earlier, interrupted one left stays.
        { pending: outcome === NOT_CREATED ? (before ?? null) : { ...pending, lastStatus: outcome } }
      : { lastStatus: outcome };
    await this.parts.claims.release(this.options.service, this.options.fingerprint, patch);
  }

  async created(job: { id: string; status: string }): Promise<void> {
    if (!this.parts.ledger || !this.claimed.entry) return;
    const { pending } = this;
    const patch: LedgerPatch = {
      id: job.id,
      lastStatus: job.status,
      ...(pending
        ? {
            // The new job takes the entry over: what its submission recorded, and no read of it yet.
            pending: null,
            receipt: pending.receipt ?? null,
            receiptIssuedAt: pending.receiptIssuedAt ?? null,
            ...(pending.title === undefined ? {} : { title: pending.title }),
            ...(pending.request ? { request: pending.request } : {}),
            ...(pending.data ? { data: pending.data } : {}),
            lastReadAt: null,
            nextReadAt: null,
            readingUntil: null,
            retryAfterFloorMs: null,
          }
        : {}),
    };
    await this.parts.claims.handOver(this.options.service, this.options.fingerprint, { id: job.id, patch });
  }
}

/** A submission replacing `entry`'s recorded job, seen as the job-less entry it will become. */
function asSubmission(entry: LedgerEntry, pending: PendingSubmission): LedgerEntry {
  const { pending: _replacing, data: _jobData, ...recorded } = entry;
  return {
    ...recorded,
    id: null,
    lastStatus: pending.lastStatus,
    receipt: pending.receipt ?? null,
    receiptIssuedAt: pending.receiptIssuedAt ?? null,
    title: pending.title === undefined ? entry.title : pending.title,
    request: pending.request ?? entry.request,
    ...(pending.data ? { data: pending.data } : {}),
  };
}
