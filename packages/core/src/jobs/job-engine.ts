/**
 * The job engine's interface: what a service client gives it and gets from it. One engine serves every
 * service that starts paid work: `start` claims a submission in the ledger before anything is paid, `poll`
 * is the one polling loop, and every status read is recorded (`observe`, `noteRead`) so that the service's
 * interval and the platform's Retry-After hold for every later read, in any call or process.
 */
import type { JobLedger, LedgerEntry, LedgerPatch } from '../ledger/create-job-ledger.js';
import type { PolymodalEvents } from '../telemetry/polymodal-events.js';
import type { SleepFunction } from '../util/sleep.js';
import type { PollJobOptions, PollOutcome } from './poll-job.js';

export interface JobEngineLogger {
  warn(message: string): void;
}

export interface JobEngineOptions {
  /** Without a ledger, submissions are single-flight in this process only and nothing is resumable. */
  ledger?: JobLedger | undefined;
  /** Where ledger trouble is reported (default: one line on stderr per distinct problem). */
  log?: JobEngineLogger;
  /** How long a claim holds without renewal (renewed every third of it while the submission runs). */
  leaseMs?: number;
  now?: () => number;
  sleep?: SleepFunction;
  random?: () => number;
  /** Told how each start ended (started, resumed, joined, duplicate prevented) and of every status read. */
  events?: PolymodalEvents;
}

/** What a submission may record about itself before its job exists. */
export type SubmissionPatch = Pick<
  LedgerPatch,
  'lastStatus' | 'receipt' | 'receiptIssuedAt' | 'title' | 'request' | 'data'
>;

export interface StartJobContext {
  /**
   * The submission under this call's claim: what an earlier, interrupted attempt left (e.g. a receipt).
   * When it replaces a recorded job, this is the replacement as a job-less entry (the recorded job's own
   * fields stay in the ledger, untouched, until the new job exists).
   */
  entry: LedgerEntry | undefined;
  /**
   * The entry as it was before this call claimed it: its status tells an interrupted attempt. For a
   * replacement, an interrupted earlier replacement shows as a job-less entry, else the recorded job.
   */
  previous: LedgerEntry | undefined;
  /** Aborts when every caller that joined this submission has gone. */
  signal: AbortSignal;
  /** Records progress of the submission (e.g. an upload receipt) before going on; throws if it cannot. */
  save(patch: SubmissionPatch): Promise<void>;
}

export interface StartJobOptions {
  service: string;
  /** Identity of the request: the same fingerprint is the same paid work. */
  fingerprint: string;
  /** What was asked, for list_jobs and resuming; never credentials or file contents. */
  request?: Record<string, unknown>;
  title?: string | null;
  signal?: AbortSignal | undefined;
  /** A caller waiting on another process's submission stops waiting at this time (epoch ms). */
  deadline?: number | undefined;
  /** Start anew even when a recorded job could be resumed (pay again on purpose). */
  forceNew?: boolean | undefined;
  /** Submit although an identical earlier submission may already have created a job. */
  allowResubmit?: boolean | undefined;
  /** Name of the option that sets `allowResubmit`, for the error message. */
  resubmitOption?: string;
  /**
   * Whether an interrupted submission may simply be run again (the service recognises a repeat: an
   * idempotency key, a receipt that yields the existing job). Otherwise an interrupted submission whose
   * POST may have arrived blocks with `UncertainSubmissionError` until `allowResubmit`.
   */
  resendable?: boolean;
  /** Whether a job with this last status is worth resuming (default: yes). */
  reusable?: (status: string) => boolean;
  /**
   * The live status of a recorded job before it is resumed; undefined when the job is gone. `deadline` is
   * the call's (or a minute from now when the call has none).
   */
  current?: (id: string, request: { signal: AbortSignal; deadline: number }) => Promise<string | undefined>;
  /** The paid work: upload, create, … Returns the platform's job id and status. */
  submit: (context: StartJobContext) => Promise<{ id: string; status: string }>;
}

export interface StartedJob {
  id: string;
  status: string;
  /** True when a recorded job was returned and nothing was sent. */
  resumed: boolean;
  /** True when this call joined an identical submission in flight (here or in another process). */
  joined: boolean;
}

export interface ObservedRead {
  status?: string | undefined;
  /** The value read, remembered for one interval so that an immediate second read is not needed. */
  body?: unknown;
  /** The platform asked not to be read again before this long. */
  retryAfterMs?: number | undefined;
  /** Fields to record with the status (e.g. a title). */
  patch?: LedgerPatch;
}

/** A response as the chokepoint gives it: lower-case header names. */
export interface ObservedResponse {
  headers?: Record<string, string> | undefined;
}

/** One read of a job for `JobEngine.observe`. */
export interface ObserveReadOptions<R extends ObservedResponse> {
  service: string;
  id: string;
  /** Sends the read (one GET of the job). */
  read: () => Promise<R>;
  /** What the answer says about the job: its status, body, fields to record, a pause it asks for. */
  seen: (response: R) => ObservedRead;
  /** The pause a failed read asks for (default: an ApiError's Retry-After). */
  retryAfter?: ((error: unknown) => number | undefined) | undefined;
}

export interface JobEngine {
  readonly ledger: JobLedger | undefined;
  start(options: StartJobOptions): Promise<StartedJob>;
  poll<T>(options: PollJobOptions<T>): Promise<PollOutcome<T>>;
  /** Records a read made outside `poll` (a client's plain `retrieve`). */
  noteRead(service: string, id: string, read: ObservedRead): Promise<void>;
  /**
   * Runs one read of a job (the platform's response) and records what it saw: `seen(response)` on success,
   * with the response's own `Retry-After` as the least pause before the next read (a status answer may ask
   * for longer than the service's interval); the pause the platform asked for on a refusal
   * (`retryAfter(error)`, default its Retry-After). Every client's status read goes through here, so the
   * interval and the job's Retry-After floor hold for every later read of the job, in any call or process.
   */
  observe<R extends ObservedResponse>(options: ObserveReadOptions<R>): Promise<R>;
  /** The job was changed (cancel, retry, rename…): a remembered body no longer describes it. */
  invalidate(service: string, id: string): void;
  /** Records a status (or other fields) of a known job; a failure is logged, never thrown. */
  record(service: string, id: string, patch: LedgerPatch): Promise<void>;
  /** The ledger entry of a job, if this installation recorded it (undefined when there is no ledger). */
  find(service: string, id: string): Promise<LedgerEntry | undefined>;
  /** Reports a problem of the ledger once (repeats of the same message are dropped). */
  warn(message: string): void;
}
