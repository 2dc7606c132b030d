/**
 * Starting a paid job at most once. The submission is recorded in the ledger before the POST (as
 * SUBMITTING) and completed with the job id after it, so that:
 *
 * - the same request again resumes the recorded job instead of paying again (unless `reuse` says the
 *   recorded job is no longer worth resuming, e.g. it failed);
 * - a POST that was cut off after it may have arrived (connection reset, timeout) leaves the entry
 *   UNKNOWN, and the same request is then refused with `UncertainSubmissionError` until the caller
 *   explicitly allows a resubmission;
 * - a POST the platform answered with an error (4xx, or a proof it never arrived) marks the entry
 *   NOT_CREATED and blocks nothing.
 *
 * A 5xx answer is treated as uncertain: the spec does not say a job cannot exist after one.
 */
import { ApiError, ConnectionError, PolymodalError, UncertainSubmissionError } from '../errors/index.js';
import type { JobLedger, LedgerEntry } from './create-job-ledger.js';

export const SUBMITTING = 'SUBMITTING';
export const UNKNOWN_OUTCOME = 'UNKNOWN';
export const NOT_CREATED = 'NOT_CREATED';

export interface StartJobOnceOptions {
  ledger: JobLedger | undefined;
  service: string;
  fingerprint: string;
  /** What was asked, for list_jobs and resuming; never credentials or file contents. */
  request?: Record<string, unknown>;
  title?: string | null;
  /** Whether a recorded job may be returned instead of starting a new one (default: always). */
  reuse?: (entry: LedgerEntry) => boolean;
  /** Start anew even when a recorded job would be reused. */
  forceNew?: boolean;
  /** Submit even though an earlier identical submission has an unknown outcome. */
  allowResubmit?: boolean;
  /** Name of the option that sets `allowResubmit`, for the error message. */
  resubmitOption?: string;
  start: () => Promise<{ id: string; status: string }>;
  /**
   * Reads the live status of a recorded job before it is reused (undefined: the job is gone). A job that
   * failed since it was recorded is then not reused.
   */
  current?: (id: string) => Promise<string | undefined>;
}

export interface StartedJob {
  id: string;
  status: string;
  /** True when a recorded job was returned and nothing was sent. */
  resumed: boolean;
}

export async function startJobOnce(options: StartJobOnceOptions): Promise<StartedJob> {
  const { ledger, service, fingerprint } = options;
  if (!ledger) {
    const started = await options.start();
    return { ...started, resumed: false };
  }
  const existing = await ledger.findByFingerprint(service, fingerprint);
  const reuse = options.reuse ?? (() => true);
  if (existing?.id && !options.forceNew && reuse(existing)) {
    const status = options.current ? await options.current(existing.id) : existing.lastStatus;
    if (status !== undefined) {
      const fresh = { ...existing, lastStatus: status };
      if (status !== existing.lastStatus) {
        await ledger.update(service, fingerprint, { lastStatus: status }).catch(() => undefined);
      }
      if (reuse(fresh)) return { id: existing.id, status, resumed: true };
    }
  }
  if (
    existing &&
    existing.id === null &&
    (existing.lastStatus === SUBMITTING || existing.lastStatus === UNKNOWN_OUTCOME) &&
    !options.allowResubmit
  ) {
    throw new UncertainSubmissionError({
      service,
      since: existing.updatedAt,
      resubmitOption: options.resubmitOption ?? 'allowResubmit',
    });
  }
  await ledger.record({
    service,
    fingerprint,
    id: null,
    lastStatus: SUBMITTING,
    ...(options.title === undefined ? {} : { title: options.title }),
    ...(options.request ? { request: options.request } : {}),
  });
  let started: { id: string; status: string };
  try {
    started = await options.start();
  } catch (error) {
    const outcome = provesNotCreated(error) ? NOT_CREATED : UNKNOWN_OUTCOME;
    await ledger.update(service, fingerprint, { lastStatus: outcome }).catch(() => undefined);
    throw error;
  }
  await ledger.update(service, fingerprint, { id: started.id, lastStatus: started.status });
  return { ...started, resumed: false };
}

/** Whether a failed POST certainly created nothing. */
export function provesNotCreated(error: unknown): boolean {
  if (ApiError.isInstance(error)) return error.status < 500;
  if (ConnectionError.isInstance(error)) return !error.requestMayHaveArrived;
  // Our own checks (validation, configuration) fail before anything is sent; an abort or a timeout may not.
  return PolymodalError.isInstance(error) && (error.kind === 'validation' || error.kind === 'config');
}

/** The status `read` returns, or undefined when the service answers 404 (the recorded job is gone). */
export async function statusUnlessGone(read: () => Promise<string>): Promise<string | undefined> {
  try {
    return await read();
  } catch (error) {
    if (ApiError.isInstance(error) && error.status === 404) return undefined;
    throw error;
  }
}
