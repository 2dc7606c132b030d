/**
 * The job engine: the one owner of "this job, its claim, its last read, its deadline", used by every
 * service client that starts paid work (meeting, catalog video, image-to-video, flashcards, speech
 * synthesis, reading score).
 *
 * - `start` claims a submission in the ledger before any byte is uploaded. An identical request in this
 *   process joins the one in flight; in another process it finds the claim and waits for that job
 *   (within its own deadline) instead of paying again. A claim whose owner died (process gone, lease
 *   expired) is taken over; a claim that cannot be written refuses the submission before anything is
 *   paid. A recorded job is resumed instead of resubmitted.
 * - `poll` is the one polling loop: a deadline that bounds every read (a Retry-After longer than the time
 *   left ends the wait), a handle (`done: false`) when time runs out — never an error, never a late answer —
 *   and a per-job minimum interval that holds across tool calls and processes: the last read (time, and in
 *   this process the body) is remembered and reused, or the rest of the interval is waited out.
 * - Every status read is recorded in the ledger here, in one write when it changed nothing: before it is
 *   sent, a compare-and-set takes the read (its time, and the earliest next one: an interval, or the last
 *   Retry-After, and a small slack on), so of several processes exactly one reads and the others wait; after
 *   it, the answer is written only when it changed the job (status, recorded fields) or asked for a longer
 *   pause. The entry is looked at before the first read only: later reads start from the entry as this
 *   process last wrote it, and a taking refused because another write came between looks again. A ledger
 *   write that fails is logged once with the reason (and never hides the platform's answer), except a claim,
 *   whose failure blocks the paid request.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { ApiError, RateLimitError } from '../errors/api-error.js';
import {
  ConnectionError,
  LedgerError,
  PollingTimeoutError,
  PolymodalError,
  SubmissionInProgressError,
  TimeoutError,
  UncertainSubmissionError,
} from '../errors/polymodal-error.js';
import { parseRetryAfter } from '../http/parse-retry-after.js';
import type { JobLedger, LedgerEntry, LedgerPatch, PendingSubmission } from '../ledger/create-job-ledger.js';
import { canonicalJson } from '../ledger/fingerprint.js';
import { guardEvents, type PolymodalEvents } from '../telemetry/polymodal-events.js';
import { sleep as defaultSleep, type SleepFunction } from '../util/sleep.js';
import {
  DEFAULT_MAX_CONSECUTIVE_ERRORS,
  isTransientReadError,
  type PollJobOptions,
  type PollOutcome,
} from './poll-job.js';
import { createSingleFlight } from './single-flight.js';

/** Ledger statuses of a submission that has no job id (yet). */
export const SUBMITTING = 'SUBMITTING';
export const UNKNOWN_OUTCOME = 'UNKNOWN';
export const NOT_CREATED = 'NOT_CREATED';

export const DEFAULT_CLAIM_LEASE_MS = 30_000;
/** How often a caller waiting on another process's claim looks at the ledger again. */
const CLAIM_CHECK_MS = 250;
/**
 * A read taken in the ledger must be sent within this long, and the next read of any other process comes
 * this much later than one interval after the taking: so the reads of two processes are always at least
 * one interval apart, however slowly the ledger answered the taking. A read not sent in time is taken
 * again with twice the slack (up to the most below), so a slow ledger delays reads but never stops them.
 */
const TAKE_SLACK_MS = 500;
const MAX_TAKE_SLACK_MS = 8_000;
/** How often a ledger write of a job's state is tried, and the pause between tries. */
const RECORD_ATTEMPTS = 2;
const RECORD_RETRY_MS = 100;
/** A job the ledger does not hold is looked up again after this long (another process may record it). */
const UNRECORDED_MEMORY_MS = 60_000;
/** How long a resume check may take when the call gives no deadline. */
const RESUME_CHECK_MS = 60_000;
/** While another process sets the time of the next read, the ledger is looked at again this often. */
const LEDGER_RECHECK_MS = 1_000;
/** Remembered bodies older than this are dropped (they are only reused within one interval). */
const BODY_MEMORY_MS = 120_000;
/** How often, at most, the memory of jobs is swept for those not read for BODY_MEMORY_MS. */
const MEMORY_SWEEP_MS = 1_000;

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
   * interval and Retry-After hold for every later read of the job, in any call or process.
   */
  observe<R extends ObservedResponse>(
    service: string,
    id: string,
    read: () => Promise<R>,
    seen: (response: R) => ObservedRead,
    retryAfter?: (error: unknown) => number | undefined,
  ): Promise<R>;
  /** The job was changed (cancel, retry, rename…): a remembered body no longer describes it. */
  invalidate(service: string, id: string): void;
  /** Records a status (or other fields) of a known job; a failure is logged, never thrown. */
  record(service: string, id: string, patch: LedgerPatch): Promise<void>;
  /** The ledger entry of a job, if this installation recorded it (undefined when there is no ledger). */
  find(service: string, id: string): Promise<LedgerEntry | undefined>;
  /** Reports a problem of the ledger once (repeats of the same message are dropped). */
  warn(message: string): void;
}

/** Whether a failed submission certainly created nothing. */
export function provesNotCreated(error: unknown): boolean {
  if (ApiError.isInstance(error)) return error.status < 500;
  if (ConnectionError.isInstance(error)) return !error.requestMayHaveArrived;
  // Our own checks (validation, configuration, ledger) fail before anything is sent; an abort or a
  // timeout may not.
  return (
    PolymodalError.isInstance(error) &&
    (error.kind === 'validation' || error.kind === 'config' || error.kind === 'ledger')
  );
}

interface ReadMemory {
  /** When the last read (or failed read) ended. */
  at: number;
  /** Earliest time of the next read (interval or Retry-After). */
  nextAt: number;
  body?: unknown;
  bodyAt?: number;
  /**
   * The next-read times this process wrote (or is writing) when it took reads in the ledger, while they are
   * ahead: meant for the other processes (they carry their slack), so this one, which knows when its reads
   * were answered, goes by `nextAt`. More than the last one: a taking too slow to send its read is taken
   * again, and a look at the ledger may still find the first.
   */
  takings?: number[];
  /**
   * The longest pause the platform asked for between two reads of this job (its largest Retry-After so
   * far): no read comes sooner after the one before, until the job ends. Kept in the ledger too.
   */
  floorMs?: number;
  /**
   * The job's ledger entry as this process last wrote it (a taking, or a status it recorded). The next
   * read's look at the ledger uses it instead of reading the entry again (issue 24: one ledger read less
   * per status read). It cannot mislead: the taking is written only at the entry's revision, so if any
   * other write came in between, the taking is refused, this is forgotten, and the next look reads the
   * ledger.
   */
  entry?: LedgerEntry;
}

function parseTime(value: string | null | undefined): number {
  if (!value) return 0;
  const parsed = Date.parse(value);
  return Number.isFinite(parsed) ? parsed : 0;
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function createJobEngine(options: JobEngineOptions = {}): JobEngine {
  const { ledger } = options;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const leaseMs = options.leaseMs ?? DEFAULT_CLAIM_LEASE_MS;
  const owner = `${hostname()}/${process.pid}/${Math.floor(random() * 2 ** 32).toString(36)}`;
  const flights = createSingleFlight();
  const memory = new Map<string, ReadMemory>();
  /** When `remember` last dropped the memory of jobs not read for BODY_MEMORY_MS. */
  let sweptAt = Number.NEGATIVE_INFINITY;
  /** Each service's minimum interval between two reads of a job, as the last poll of it was given. */
  const intervals = new Map<string, number>();
  /** Reads taken in the ledger and not noted yet: the entry as taken, and the next read time it says. */
  const taken = new Map<string, { entry: LedgerEntry; nextAt: number }>();
  /** When this process changed a job (cancel, retry, rename…), so that its recorded status is not trusted. */
  const changed = new Map<string, number>();
  const reported = new Set<string>();
  const events = guardEvents(options.events);

  const log: JobEngineLogger = options.log ?? {
    warn: (message) => process.stderr.write(`polymodal: ${message}\n`),
  };
  /** Logs a ledger problem once per distinct reason, so a full disk does not flood the log. */
  function warnOnce(message: string): void {
    if (reported.has(message)) return;
    reported.add(message);
    log.warn(message);
  }

  const keyOf = (service: string, id: string) => `${service}\n${id}`;

  function claimAlive(claim: LedgerEntry['claim']): boolean {
    if (!claim) return false;
    if (parseTime(claim.expiresAt) <= now()) return false;
    const [host, pidText] = claim.owner.split('/');
    if (host === hostname() && pidText !== undefined) {
      const pid = Number(pidText);
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !processAlive(pid)) return false;
    }
    return true;
  }

  function newClaim() {
    return { owner, expiresAt: new Date(now() + leaseMs).toISOString() };
  }

  /** Jobs the ledger does not hold (started elsewhere), so that polling them does not search it each time. */
  const unrecorded = new Map<string, number>();

  async function find(service: string, id: string): Promise<LedgerEntry | undefined> {
    if (!ledger) return undefined;
    const key = keyOf(service, id);
    const missingSince = unrecorded.get(key);
    if (missingSince !== undefined && now() - missingSince < UNRECORDED_MEMORY_MS) return undefined;
    try {
      const entry = await ledger.findById(service, id);
      if (entry) unrecorded.delete(key);
      else unrecorded.set(key, now());
      return entry;
    } catch (error) {
      warnOnce(`could not read the job ledger at ${ledger.location}: ${describeError(error)}`);
      return undefined;
    }
  }

  /**
   * Writes what is known of a job; a failure is logged, never thrown. Tried twice: a read that changed the
   * job is written once (and the last one of a finished job never again), so a write lost to a busy lock
   * would leave the ledger behind the platform for good.
   */
  async function record(service: string, id: string, patch: LedgerPatch): Promise<void> {
    if (!ledger) return;
    const key = keyOf(service, id);
    for (let attempt = 1; ; attempt++) {
      try {
        const written = await ledger.updateById(service, id, patch);
        if (written?.id === id) rememberEntry(key, written);
        else forgetEntry(key);
        return;
      } catch (error) {
        forgetEntry(key);
        if (attempt < RECORD_ATTEMPTS) {
          await sleep(RECORD_RETRY_MS).catch(() => undefined);
          continue;
        }
        warnOnce(`could not update the job ledger at ${ledger.location}: ${describeError(error)}`);
        return;
      }
    }
  }

  /** Keeps `entry` as the job's entry this process last wrote (see `ReadMemory.entry`), while it is remembered. */
  function rememberEntry(key: string, entry: LedgerEntry): void {
    const remembered = memory.get(key);
    if (remembered) remembered.entry = entry;
  }

  function forgetEntry(key: string): void {
    const remembered = memory.get(key);
    if (remembered) delete remembered.entry;
  }

  function remember(service: string, id: string, update: Partial<ReadMemory> & { at: number }): void {
    const key = keyOf(service, id);
    const previous = memory.get(key);
    memory.set(key, { nextAt: update.at, ...previous, ...update });
    // Bodies can be megabytes (a two-hour transcript); they are only useful for one interval. A read taken
    // and not answered yet (`at` 0 until it is) is kept: its taking tells this process's callers that the
    // read in flight is their own to join, not another process's to wait out. Swept at most once a second,
    // not on every read: the memory holds every job read in the last two minutes.
    if (now() - sweptAt < MEMORY_SWEEP_MS) return;
    sweptAt = now();
    for (const [otherKey, entry] of memory) {
      if (now() - Math.max(entry.at, ...(entry.takings ?? [])) > BODY_MEMORY_MS) memory.delete(otherKey);
    }
  }

  async function noteRead(service: string, id: string, read: ObservedRead): Promise<void> {
    const at = now();
    // The service's interval (as the polling loop knows it) is the least pause after any read, so a read
    // noted once, where it was made, tells other processes when they may read next. A later note must not
    // shorten the wait that the ledger tells other processes, nor a restarted one.
    const key = keyOf(service, id);
    const floorMs = Math.max(memory.get(key)?.floorMs ?? 0, read.retryAfterMs ?? 0);
    const pauseMs = Math.max(floorMs, intervals.get(service) ?? 0);
    const nextAt = Math.max(at + pauseMs, memory.get(key)?.nextAt ?? 0);
    remember(service, id, {
      at,
      nextAt,
      floorMs,
      ...(read.body === undefined ? {} : { body: read.body, bodyAt: at }),
    });
    const reservation = taken.get(key);
    taken.delete(key);
    // The read was taken in the ledger with its time and the next one's: unless the answer changed the job
    // or asked for a longer pause, that write already says everything other processes need.
    if (
      reservation &&
      at + (read.retryAfterMs ?? 0) <= reservation.nextAt &&
      floorMs <= (reservation.entry.retryAfterFloorMs ?? 0) &&
      (read.status === undefined || read.status === reservation.entry.lastStatus) &&
      Object.entries(read.patch ?? {}).every(
        ([field, value]) =>
          canonicalJson(value) === canonicalJson(reservation.entry[field as keyof LedgerEntry]),
      )
    ) {
      return;
    }
    await record(service, id, {
      ...(read.status === undefined ? {} : { lastStatus: read.status }),
      ...read.patch,
      lastReadAt: new Date(at).toISOString(),
      nextReadAt: new Date(nextAt).toISOString(),
      readingUntil: null,
      ...(floorMs > 0 ? { retryAfterFloorMs: floorMs } : {}),
    });
  }

  /**
   * Waits until no process holds another claim on this request, then takes the claim. Returns the
   * claimed entry, or a recorded job to resume.
   */
  async function claim(
    options: StartJobOptions,
    signal: AbortSignal,
  ): Promise<
    { resumed: StartedJob } | { entry: LedgerEntry | undefined; previous: LedgerEntry | undefined }
  > {
    if (!ledger) return { entry: undefined, previous: undefined };
    const { service, fingerprint } = options;
    const reusable = options.reusable ?? (() => true);
    let waited = false;
    /** A recorded job found gone or not worth resuming in this call (not checked again). */
    let passedOver: string | undefined;
    for (;;) {
      signal.throwIfAborted();
      let entry: LedgerEntry | undefined;
      try {
        entry = await ledger.findByFingerprint(service, fingerprint);
      } catch (error) {
        throw ledgerRefusal(error);
      }

      if (entry && claimAlive(entry.claim) && entry.claim?.owner !== owner) {
        // Another process is submitting this very request: wait for its job rather than pay again.
        if (options.deadline !== undefined && now() + CLAIM_CHECK_MS > options.deadline) {
          throw new SubmissionInProgressError({ service, since: entry.updatedAt });
        }
        waited = true;
        await sleep(CLAIM_CHECK_MS, signal);
        continue;
      }

      if (entry?.id && entry.id !== passedOver && !options.forceNew && reusable(entry.lastStatus)) {
        let status: string | undefined = entry.lastStatus;
        // A job read (by any process) so recently that it may not be read again yet: that read's status is
        // as current as the platform lets anyone know, so the resume check does not wait for another.
        const changedHere = changed.get(keyOf(service, entry.id)) ?? 0;
        const readRecently =
          entry.lastReadAt != null &&
          parseTime(entry.nextReadAt) > now() &&
          changedHere < parseTime(entry.lastReadAt);
        if (options.current && !readRecently) {
          try {
            status = await options.current(entry.id, {
              signal,
              deadline: options.deadline ?? now() + RESUME_CHECK_MS,
            });
          } catch (error) {
            if (signal.aborted) throw signal.reason;
            // The platform cannot answer right now (503, 429, a reset, a Retry-After): the recorded job is
            // still the right answer, and paying again would be the one wrong one.
            if (!isTransientReadError(error) && !PollingTimeoutError.isInstance(error)) throw error;
          }
        }
        if (status !== undefined && reusable(status)) {
          return { resumed: { id: entry.id, status, resumed: true, joined: waited } };
        }
        // Gone (404) or no longer worth resuming: start over in this entry. Reading the status wrote to
        // the entry, so it is read again before it is claimed.
        passedOver = entry.id;
        continue;
      }

      // An earlier attempt at this submission (or at replacing its recorded job) that may have sent it.
      const interrupted = entry?.id === null ? entry.lastStatus : entry?.pending?.lastStatus;
      if (
        entry &&
        (interrupted === SUBMITTING || interrupted === UNKNOWN_OUTCOME) &&
        !options.resendable &&
        !options.allowResubmit &&
        // Asking for a new job on purpose accepts that the interrupted one may exist too.
        !options.forceNew
      ) {
        throw new UncertainSubmissionError({
          service,
          since: entry.id === null ? entry.updatedAt : (entry.pending?.since ?? entry.updatedAt),
          resubmitOption: options.resubmitOption ?? 'allowResubmit',
        });
      }

      const fresh = {
        lastStatus: SUBMITTING,
        claim: newClaim(),
        ...(options.title === undefined ? {} : { title: options.title }),
        ...(options.request ? { request: options.request } : {}),
      };
      try {
        if (!entry) {
          const inserted = await ledger.insert({ service, fingerprint, id: null, ...fresh });
          if (inserted.inserted) return { entry: inserted.entry, previous: undefined };
          continue;
        }
        if (entry.id !== null) {
          // Replacing a recorded job (asked anew, or gone, or not worth resuming): the job stays recorded
          // exactly as it is (listed, resumable, counted) until the new one exists. Only a failure that
          // proves nothing was created forgets the attempt; a receipt an interrupted earlier replacement
          // left is kept, since sending it again yields the job it may have created.
          const earlier = entry.pending ?? undefined;
          const pending: PendingSubmission = {
            lastStatus: SUBMITTING,
            since: new Date(now()).toISOString(),
            ...(earlier?.receipt
              ? { receipt: earlier.receipt, receiptIssuedAt: earlier.receiptIssuedAt ?? null }
              : {}),
            ...(earlier?.data ? { data: earlier.data } : {}),
            ...(options.title === undefined ? {} : { title: options.title }),
            ...(options.request ? { request: options.request } : {}),
          };
          const claimed = await ledger.compareAndSet(service, fingerprint, entry.revision, {
            claim: newClaim(),
            pending,
          });
          if (claimed) return { entry: claimed, previous: entry };
          continue;
        }
        const claimed = await ledger.compareAndSet(service, fingerprint, entry.revision, fresh);
        if (claimed) return { entry: claimed, previous: entry };
      } catch (error) {
        throw ledgerRefusal(error);
      }
    }
  }

  function ledgerRefusal(error: unknown): unknown {
    if (!PolymodalError.isInstance(error) || error.kind !== 'validation') {
      const location = ledger?.location ?? '(none)';
      return new LedgerError(
        `The job ledger at ${location} could not record this submission (${describeError(error)}), so it was ` +
          'not sent: without a record, a repeat could pay twice. Fix the job ledger (the state directory, ' +
          'POLYMODAL_STATE_DIR, or the database, POLYMODAL_DATABASE_URL) and try again.',
        { location, cause: error },
      );
    }
    return error;
  }

  async function startOnce(options: StartJobOptions, signal: AbortSignal): Promise<StartedJob> {
    const claimed = await claim(options, signal);
    if ('resumed' in claimed) return claimed.resumed;
    const { service, fingerprint } = options;
    const entry = claimed.entry;
    /** Set when this submission replaces a recorded job: its progress, kept beside the job until it exists. */
    let pending = entry?.id !== null ? (entry?.pending ?? undefined) : undefined;
    const before = claimed.previous?.pending ?? undefined;

    const renewal =
      ledger && entry
        ? setInterval(() => {
            void renewClaim(service, fingerprint);
          }, leaseMs / 3)
        : undefined;
    renewal?.unref();

    let started: { id: string; status: string };
    try {
      started = await options.submit({
        entry: entry && pending ? asSubmission(entry, pending) : entry,
        previous: claimed.previous && before ? asSubmission(claimed.previous, before) : claimed.previous,
        signal,
        save: async (patch) => {
          if (!ledger) return;
          try {
            if (pending) {
              pending = { ...pending, ...patch };
              await ledger.update(service, fingerprint, { pending });
            } else {
              await ledger.update(service, fingerprint, patch);
            }
          } catch (error) {
            throw ledgerRefusal(error);
          }
        },
      });
    } catch (error) {
      if (renewal) clearInterval(renewal);
      if (ledger && entry) {
        const outcome = provesNotCreated(error) ? NOT_CREATED : UNKNOWN_OUTCOME;
        try {
          await ledger.update(
            service,
            fingerprint,
            pending
              ? {
                  claim: null,
                  // Nothing of this attempt can exist: what an earlier, interrupted one left stays.
                  pending: outcome === NOT_CREATED ? (before ?? null) : { ...pending, lastStatus: outcome },
                }
              : { lastStatus: outcome, claim: null },
          );
        } catch (writeError) {
          warnOnce(`could not release a claim in the job ledger: ${describeError(writeError)}`);
        }
      }
      throw error;
    }
    if (renewal) clearInterval(renewal);
    if (ledger && entry) {
      try {
        await ledger.update(service, fingerprint, {
          id: started.id,
          lastStatus: started.status,
          claim: null,
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
        });
      } catch (error) {
        // The job exists and is paid for: its id is the answer, even if it could not be written down.
        warnOnce(
          `${service} job ${started.id} was started but could not be recorded in the job ledger: ${describeError(error)}`,
        );
      }
    }
    return { ...started, resumed: false, joined: false };
  }

  async function renewClaim(service: string, fingerprint: string): Promise<void> {
    if (!ledger) return;
    try {
      const entry = await ledger.findByFingerprint(service, fingerprint);
      if (entry?.claim?.owner !== owner) return;
      await ledger.compareAndSet(service, fingerprint, entry.revision, { claim: newClaim() });
    } catch (error) {
      warnOnce(`could not renew a claim in the job ledger: ${describeError(error)}`);
    }
  }

  /**
   * When the next read of a job may be sent, from this process's memory and the ledger (where other
   * processes leave their reads). `elsewhere`: the ledger, not this process, sets the time.
   */
  async function gate(service: string, id: string) {
    const entry = memory.get(keyOf(service, id))?.entry ?? (await find(service, id));
    // Memory as it is after the look, not before: looking at the ledger takes time, and another caller of
    // this process may have taken a read meanwhile. Compared with what it was before, that taking would look
    // like another process's (one interval and the slack to wait, so a caller that asked not to wait gives
    // up) instead of a read in flight here that this caller joins.
    const remembered = memory.get(keyOf(service, id));
    const written = parseTime(entry?.nextReadAt);
    // A taking of this process (any one still ahead) is as the ledger left it: its memory knows better (and
    // of a taking whose read was not sent, that nothing was read).
    const own = remembered?.takings?.includes(written) ?? false;
    const ledgerNextAt = own ? 0 : written;
    // The floor another process (or this one before a restart) learnt holds here too.
    const floorMs = Math.max(remembered?.floorMs ?? 0, entry?.retryAfterFloorMs ?? 0);
    if (remembered) remembered.floorMs = floorMs;
    else if (floorMs > 0) memory.set(keyOf(service, id), { at: 0, nextAt: 0, floorMs });
    return {
      at: Math.max(remembered?.at ?? 0, own ? 0 : parseTime(entry?.lastReadAt)),
      nextAt: Math.max(remembered?.nextAt ?? 0, ledgerNextAt),
      floorMs,
      entry,
      elsewhere: ledgerNextAt > (remembered?.nextAt ?? 0),
    };
  }

  /**
   * Adds to a job's memory a next-read time this process writes when it takes a read (`add`), or removes
   * one whose taking was lost to another writer; times that have come are dropped, since they hold nobody
   * off any more.
   */
  function noteTaking(key: string, nextAt: number, add: boolean): void {
    const remembered = memory.get(key);
    const takings = (remembered?.takings ?? []).filter((time) => time > now() && time !== nextAt);
    if (add) takings.push(nextAt);
    if (remembered) remembered.takings = takings;
    else memory.set(key, { at: 0, nextAt: 0, takings });
  }

  /**
   * Takes the read about to be sent in the ledger: its time, and the earliest next read one interval (and
   * the sending slack) on, written only if no other process wrote the entry since it was looked at. That
   * process may have taken the read itself, or the taking took too long to send the read now: false, and
   * the caller looks again (and waits out the time the ledger says). A reader that dies mid-read holds the
   * others off for that one interval only.
   */
  async function reserve(
    service: string,
    entry: LedgerEntry | undefined,
    sentAt: number,
    intervalMs: number,
    slackMs: number,
  ): Promise<'taken' | 'lost' | 'slow'> {
    if (!ledger || !entry?.id) return 'taken';
    // The longest pause the platform asked for holds for this read too: the taking says so at once,
    // before this read's answer can.
    const key = keyOf(service, entry.id);
    const floorMs = memory.get(key)?.floorMs ?? 0;
    const nextAt = sentAt + Math.max(intervalMs, floorMs) + slackMs;
    // Known here as this process's taking before it is written: another caller's look at the ledger may
    // find the write before the answer to it reaches this one (a database pool has several connections),
    // and must join this read, not wait it out (or give up) as another process's. A lost one is forgotten.
    noteTaking(key, nextAt, true);
    try {
      // Not durable (where the store can say so: PostgreSQL): a taking only spaces reads, and one lost in a
      // crash of the database lets one read after it come early; the job's id, receipt and status stay as
      // durably written before. It is the one ledger write of a status read that changed nothing.
      const reserved = await ledger.compareAndSet(
        service,
        entry.fingerprint,
        entry.revision,
        { lastReadAt: new Date(sentAt).toISOString(), nextReadAt: new Date(nextAt).toISOString() },
        { durable: false },
      );
      if (!reserved) {
        noteTaking(key, nextAt, false);
        forgetEntry(key);
        return 'lost';
      }
      rememberEntry(key, reserved);
      if (now() > sentAt + slackMs) return 'slow';
      taken.set(key, { entry: reserved, nextAt });
      return 'taken';
    } catch (error) {
      warnOnce(`could not update the job ledger at ${ledger.location}: ${describeError(error)}`);
      return 'taken';
    }
  }

  async function poll<T>(o: PollJobOptions<T>): Promise<PollOutcome<T>> {
    const { service, id, signal } = o;
    intervals.set(service, o.intervalMs);
    const maxErrors = o.maxConsecutiveErrors ?? DEFAULT_MAX_CONSECUTIVE_ERRORS;
    const startedAt = now();
    const cadence = o.cadence ?? {};
    let pause = o.intervalMs;
    let takeSlack = TAKE_SLACK_MS;
    let value: T | undefined;
    let reads = 0;
    let transientErrors = 0;
    let consecutive = 0;
    let lastError: unknown;
    const outcome = (done: boolean): PollOutcome<T> => ({
      done,
      value,
      reads,
      transientErrors,
      ...(lastError === undefined || done ? {} : { lastError }),
    });

    /** When the value this call holds was read; a body remembered later is a newer read of the job. */
    let valueAt = Number.NEGATIVE_INFINITY;
    /**
     * Takes the body remembered from a read newer than this call's value and less than one interval older
     * than the call: as good as a new read (and costs the platform nothing). True when the job is done.
     */
    const takeRemembered = async (): Promise<boolean> => {
      const remembered = memory.get(keyOf(service, id));
      const bodyAt = remembered?.bodyAt ?? 0;
      const since = Math.max(valueAt, startedAt - o.intervalMs);
      if (remembered?.body === undefined || bodyAt <= since) return false;
      valueAt = bodyAt;
      value = remembered.body as T;
      await o.onValue?.(value);
      return o.isDone(value);
    };

    if (await takeRemembered()) return outcome(true);

    for (;;) {
      signal?.throwIfAborted();
      const { at, nextAt: notBefore, floorMs, entry, elsewhere } = await gate(service, id);
      // Another caller of this process may have read the job while this one looked at the ledger (its read
      // then also took this caller's turn, or made the ledger say the next read is not due): its answer is
      // this call's. Else a caller that asked not to wait would answer "nothing to show yet" about a job that
      // was just read, finished, or wait one more interval and read a finished job again.
      if (await takeRemembered()) return outcome(true);
      // Never sooner than the longest pause the platform asked for; jitter only lengthens the pause.
      pause = Math.max(pause, floorMs);
      const spacing = pause * (1 + (cadence.jitter ?? 0) * random());
      let nextAt = Math.max(at > 0 ? at + spacing : 0, notBefore, now());
      if (reads === 0 && transientErrors === 0 && cadence.initialDelayMs) {
        nextAt = Math.max(nextAt, startedAt + cadence.initialDelayMs);
      }
      // A caller with nothing to show may wait out (at most) one interval, and the slack of another
      // process's taking, past its deadline for a first answer; never a Retry-After, and never a second
      // read at the deadline.
      // Counted from the start of the call, not from each look: a process that loses the read to another
      // one does not get a second interval.
      const firstRead = value === undefined;
      // Another process's read holds this one off for an interval and the slack of its taking.
      const limit =
        firstRead && o.firstReadDeadline !== undefined
          ? Math.min(
              o.firstReadDeadline,
              Math.max(o.deadline, startedAt + o.intervalMs + (elsewhere ? TAKE_SLACK_MS : 0)),
            )
          : o.deadline;
      if (firstRead) {
        // Waiting is bounded by `limit`; the first attempt, when it can start now, is made while the call
        // has time left (the bookkeeping before it must not use up a short interval). That grace is one
        // attempt: after a failure, noting it may itself outlast a short interval, and a retry that could
        // always "start now" would keep reading until the failures in a row are thrown.
        const hardEnd = Math.max(o.deadline, o.firstReadDeadline ?? o.deadline);
        const startsBy = transientErrors === 0 ? Math.max(now(), limit) : limit;
        if (nextAt > startsBy || now() > hardEnd) return outcome(false);
      } else if (nextAt >= o.deadline) {
        // No extra read at the deadline.
        return outcome(false);
      }
      if (nextAt > now()) {
        const wait = nextAt - now();
        // Another process sets the time: its read may ask for a longer pause. Look again now and then.
        await sleep(elsewhere ? Math.min(wait, LEDGER_RECHECK_MS) : wait, signal);
        // The ledger may have moved on meanwhile (the other process's answer asked for a longer pause).
        if (elsewhere) continue;
      }
      // The read that starts in time may take until the call's hard deadline.
      const readDeadline = firstRead ? Math.max(limit, o.firstReadDeadline ?? limit) : o.deadline;
      // Concurrent waits on one job in this process share one read.
      const attempt = await flights.run(`read\n${keyOf(service, id)}`, signal, async (shared) => {
        const sentAt = now();
        const taking = await reserve(service, entry, sentAt, o.intervalMs, takeSlack);
        if (taking === 'slow') takeSlack = Math.min(takeSlack * 2, MAX_TAKE_SLACK_MS);
        if (taking !== 'taken') return { kind: 'busy' as const };
        // A client's read goes through `observe`, which notes it (with the interval as its least pause);
        // noting it again would only be a second ledger write of the same read.
        const noted = () => (memory.get(keyOf(service, id))?.at ?? Number.NEGATIVE_INFINITY) >= sentAt;
        try {
          const read = await o.read({ signal: shared, deadline: readDeadline });
          if (!noted()) await noteRead(service, id, { status: o.status(read), body: read });
          return { kind: 'value' as const, value: read };
        } catch (error) {
          if (shared.aborted) {
            // Nobody waits for this read any more; it was taken in the ledger all the same (it may have
            // been sent), so the others keep to the interval it set.
            taken.delete(keyOf(service, id));
            throw error;
          }
          if (!noted()) {
            const retryAfterMs = ApiError.isInstance(error) ? error.retryAfterMs : undefined;
            await noteRead(service, id, retryAfterMs === undefined ? {} : { retryAfterMs });
          }
          return { kind: 'error' as const, error };
        }
      });
      if (attempt.kind === 'busy') continue;
      if (attempt.kind === 'error') {
        const { error } = attempt;
        lastError = error;
        if (TimeoutError.isInstance(error) && error.deadlineReached) return outcome(false);
        if (!isTransientReadError(error)) throw error;
        transientErrors += 1;
        // A 429 is the platform pacing us, not the job failing: it is waited out (within the deadline)
        // however often it comes; other transient failures end the wait after a few in a row.
        if (!RateLimitError.isInstance(error)) consecutive += 1;
        if (consecutive > maxErrors) throw error;
        continue;
      }
      reads += 1;
      consecutive = 0;
      lastError = undefined;
      value = attempt.value as T;
      // This read's body is remembered no later than now; only a later one is news.
      valueAt = now();
      await o.onValue?.(value);
      if (o.isDone(value)) return outcome(true);
      const grown = pause * (cadence.growth ?? 1);
      pause =
        cadence.maxIntervalMs === undefined
          ? grown
          : Math.min(grown, Math.max(cadence.maxIntervalMs, o.intervalMs));
    }
  }

  return {
    ledger,
    async start(options) {
      const key = `start\n${options.service}\n${options.fingerprint}${options.forceNew ? '\nnew' : ''}`;
      const joining = flights.has(key);
      const since = new Date(now()).toISOString();
      const flight = flights.run(key, options.signal, (shared) => startOnce(options, shared));
      let started: StartedJob;
      try {
        started = await withinDeadline(flight, options.deadline, () => {
          // Not aborted: the submission goes on, and the next identical call joins it.
          return new SubmissionInProgressError({ service: options.service, since });
        });
      } catch (error) {
        if (UncertainSubmissionError.isInstance(error)) {
          events.jobStart({ service: options.service, kind: 'duplicate_prevented' });
        }
        throw error;
      }
      const joined = joining || started.joined;
      events.jobStart({
        service: options.service,
        kind: joined ? 'joined' : started.resumed ? 'resumed' : 'started',
      });
      return joining ? { ...started, joined: true } : started;
    },
    poll,
    noteRead,
    async observe<R extends ObservedResponse>(
      service: string,
      id: string,
      read: () => Promise<R>,
      seen: (response: R) => ObservedRead,
      retryAfter?: (error: unknown) => number | undefined,
    ): Promise<R> {
      let value: R;
      try {
        value = await read();
        events.jobRead({ service });
      } catch (error) {
        // A read the platform answered (a 429, a 5xx) was sent all the same; one that never left was not.
        if (ApiError.isInstance(error)) events.jobRead({ service });
        const pauseMs = retryAfter
          ? retryAfter(error)
          : ApiError.isInstance(error)
            ? error.retryAfterMs
            : undefined;
        if (pauseMs !== undefined) await noteRead(service, id, { retryAfterMs: pauseMs });
        throw error;
      }
      const observed = seen(value);
      // The platform's Retry-After on a successful read bounds the next one like an interval; a client's own
      // pause (jittered, or a cadence) may only lengthen it.
      const asked = parseRetryAfter(value.headers?.['retry-after'], now());
      const pauseMs = Math.max(observed.retryAfterMs ?? 0, asked ?? 0);
      await noteRead(service, id, { ...observed, ...(pauseMs > 0 ? { retryAfterMs: pauseMs } : {}) });
      return value;
    },
    invalidate(service, id) {
      const key = keyOf(service, id);
      const entry = memory.get(key);
      if (entry) {
        delete entry.body;
        delete entry.bodyAt;
      }
      // The recorded status is from before the change too: a resume check must read the job again.
      changed.set(key, now());
      for (const [otherKey, at] of changed) if (now() - at > BODY_MEMORY_MS) changed.delete(otherKey);
    },
    record,
    find,
    warn: warnOnce,
  };
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

/** `promise`, or the error `late()` gives when `deadline` (epoch ms) comes first. */
function withinDeadline<T>(
  promise: Promise<T>,
  deadline: number | undefined,
  late: () => unknown,
): Promise<T> {
  if (deadline === undefined) return promise;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(late()), Math.max(0, deadline - Date.now()));
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A killed process stays in the table as a zombie until its parent reaps it; it is dead all the same.
  if (process.platform === 'linux') {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
    } catch {
      return false;
    }
  }
  return true;
}
