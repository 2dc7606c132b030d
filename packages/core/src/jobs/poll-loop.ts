/**
 * The one polling loop: reads a job until it stops or the call's deadline comes, and then answers with a
 * handle (`done: false`) — never an error, never a late answer. Reads keep to the job's read schedule
 * (the service's interval, the job's Retry-After floor, other processes' reservations) across calls and
 * processes; a body read less than one interval before the call is as good as a new read; concurrent waits
 * on one job in this process share one read. Transient failures are paced and counted; a 429 is the
 * platform pacing us and is waited out however often it comes.
 */
import { ApiError, RateLimitError } from '../errors/api-error.js';
import { TimeoutError } from '../errors/polymodal-error.js';
import type { LedgerEntry } from '../ledger/create-job-ledger.js';
import type { SleepFunction } from '../util/sleep.js';
import type { ObservedRead } from './job-engine.js';
import type { JobRecords } from './job-records.js';
import { mayRead, type PollLimits, pollDeadline, pollLimits } from './poll-deadlines.js';
import {
  DEFAULT_MAX_CONSECUTIVE_ERRORS,
  isTransientReadError,
  type PollJobOptions,
  type PollOutcome,
} from './poll-job.js';
import { grownPause, pauseAtLeastFloor, withJitter } from './poll-pace.js';
import {
  MAX_RESERVATION_SLACK_MS,
  RESERVATION_SLACK_MS,
  type ReadReservations,
} from './read-reservations.js';
import type { JobRef, ReadSchedule, ReadTiming } from './read-schedule.js';
import type { SingleFlight } from './single-flight.js';

/** While another process sets the time of the next read, the ledger is looked at again this often. */
const LEDGER_RECHECK_MS = 1_000;

export interface PollLoopParts {
  schedule: ReadSchedule;
  reservations: ReadReservations;
  records: JobRecords;
  flights: SingleFlight;
  noteRead: (job: JobRef, read: ObservedRead) => Promise<void>;
  now: () => number;
  sleep: SleepFunction;
  random: () => number;
}

type ReadAttempt<T> = { kind: 'value'; value: T } | { kind: 'error'; error: unknown } | { kind: 'refused' };

export function pollJob<T>(parts: PollLoopParts, options: PollJobOptions<T>): Promise<PollOutcome<T>> {
  return new PollCall(parts, options).run();
}

/** One call of the loop and what it has seen so far. */
class PollCall<T> {
  private readonly job: JobRef;
  private readonly limits: PollLimits;
  private value: T | undefined;
  /** When the value this call holds was read; a body remembered later is a newer read of the job. */
  private valueAt = Number.NEGATIVE_INFINITY;
  private reads = 0;
  private transientErrors = 0;
  private failuresInARow = 0;
  private lastError: unknown;
  private pauseMs: number;
  private slackMs = RESERVATION_SLACK_MS;

  constructor(
    private readonly parts: PollLoopParts,
    private readonly options: PollJobOptions<T>,
  ) {
    this.job = { service: options.service, id: options.id };
    this.limits = pollLimits({ ...options, startedAt: parts.now() });
    this.pauseMs = options.intervalMs;
    parts.schedule.setInterval(options.service, options.intervalMs);
  }

  async run(): Promise<PollOutcome<T>> {
    if (await this.takeRemembered()) return this.outcome(true);
    for (;;) {
      this.options.signal?.throwIfAborted();
      const { entry, timing } = await this.lookUp();
      // Another caller of this process may have read the job while this one looked at the ledger (its
      // read then also took this caller's turn, or made the ledger say the next read is not due): its
      // answer is this call's. Else a caller that asked not to wait would answer "nothing to show yet"
      // about a job that was just read, finished, or wait one more interval and read a finished job again.
      if (await this.takeRemembered()) return this.outcome(true);
      const hasValue = this.value !== undefined;
      const dueAt = this.dueAt(timing);
      const heldOffMs = timing.setByAnotherProcess ? RESERVATION_SLACK_MS : 0;
      const { now } = this.parts;
      const firstAttempt = this.transientErrors === 0;
      if (!mayRead(this.limits, { dueAt, now: now(), hasValue, firstAttempt, heldOffMs })) {
        return this.outcome(false);
      }
      if (dueAt > now()) {
        // Another process sets the time: its read may ask for a longer pause. Look again now and then.
        const waitMs = dueAt - now();
        const setElsewhere = timing.setByAnotherProcess;
        await this.parts.sleep(
          setElsewhere ? Math.min(waitMs, LEDGER_RECHECK_MS) : waitMs,
          this.options.signal,
        );
        if (setElsewhere) continue;
      }
      const attempt = await this.readShared(entry, pollDeadline(this.limits, hasValue));
      if (attempt.kind === 'refused') continue;
      if (attempt.kind === 'error') {
        if (this.stopsAfter(attempt.error)) return this.outcome(false);
        continue;
      }
      if (await this.took(attempt.value)) return this.outcome(true);
    }
  }

  private outcome(done: boolean): PollOutcome<T> {
    const { value, reads, transientErrors, lastError } = this;
    return { done, value, reads, transientErrors, ...(lastError === undefined || done ? {} : { lastError }) };
  }

  /**
   * Takes the body remembered from a read newer than this call's value and less than one interval older
   * than the call: as good as a new read (and costs the platform nothing). True when the job is done.
   */
  private async takeRemembered(): Promise<boolean> {
    const since = Math.max(this.valueAt, this.limits.startedAt - this.options.intervalMs);
    const remembered = this.parts.schedule.bodyReadAfter(this.job, since);
    if (!remembered) return false;
    this.valueAt = remembered.at;
    this.value = remembered.body as T;
    await this.options.onValue?.(this.value);
    return this.options.isDone(this.value);
  }

  /**
   * The job's entry (as this process last wrote it, else the ledger's) and its timing. The timing is
   * taken after the look, not before: looking at the ledger takes time, and another caller of this process
   * may have reserved a read meanwhile, which must be joined as this process's own, not waited out.
   */
  private async lookUp(): Promise<{ entry: LedgerEntry | undefined; timing: ReadTiming }> {
    const { schedule, records } = this.parts;
    const entry = schedule.entryOf(this.job) ?? (await records.find(this.job.service, this.job.id));
    return { entry, timing: schedule.timing(this.job, entry) };
  }

  /** When the next read may be sent: one (jittered) pause after the last, and never before the schedule allows. */
  private dueAt(timing: ReadTiming): number {
    const { now, random } = this.parts;
    const cadence = this.options.cadence ?? {};
    this.pauseMs = pauseAtLeastFloor(this.pauseMs, timing.floorMs);
    const spacing = withJitter(this.pauseMs, cadence.jitter ?? 0, random());
    const afterLast = timing.lastReadAt > 0 ? timing.lastReadAt + spacing : 0;
    const dueAt = Math.max(afterLast, timing.nextReadAt, now());
    if (this.reads === 0 && this.transientErrors === 0 && cadence.initialDelayMs) {
      return Math.max(dueAt, this.limits.startedAt + cadence.initialDelayMs);
    }
    return dueAt;
  }

  /** Reserves and sends one read, shared by every caller of this process waiting on the job. */
  private readShared(entry: LedgerEntry | undefined, deadline: number): Promise<ReadAttempt<T>> {
    const { flights, schedule, reservations, now } = this.parts;
    const { service, id } = this.job;
    return flights.run(`read\n${service}\n${id}`, this.options.signal, async (shared) => {
      const sentAt = now();
      const reservation = await reservations.reserve({
        job: this.job,
        entry,
        sentAt,
        intervalMs: this.options.intervalMs,
        slackMs: this.slackMs,
      });
      if (reservation === 'late') this.slackMs = Math.min(this.slackMs * 2, MAX_RESERVATION_SLACK_MS);
      if (reservation !== 'reserved') return { kind: 'refused' as const };
      // A client's read goes through `observe`, which notes it (with the interval as its least pause);
      // noting it again would only be a second ledger write of the same read.
      const noted = () => schedule.lastReadEndedAt(this.job) >= sentAt;
      try {
        const value = await this.options.read({ signal: shared, deadline });
        if (!noted())
          await this.parts.noteRead(this.job, { status: this.options.status(value), body: value });
        return { kind: 'value' as const, value };
      } catch (error) {
        if (shared.aborted) {
          reservations.abandon(this.job);
          throw error;
        }
        if (!noted()) {
          const retryAfterMs = ApiError.isInstance(error) ? error.retryAfterMs : undefined;
          await this.parts.noteRead(this.job, retryAfterMs === undefined ? {} : { retryAfterMs });
        }
        return { kind: 'error' as const, error };
      }
    });
  }

  /** Counts a failed read; true when the call answers now with a handle, and throws what ends the wait. */
  private stopsAfter(error: unknown): boolean {
    this.lastError = error;
    if (TimeoutError.isInstance(error) && error.deadlineReached) return true;
    if (!isTransientReadError(error)) throw error;
    this.transientErrors += 1;
    // A 429 is the platform pacing us, not the job failing: it is waited out (within the deadline) however
    // often it comes; other transient failures end the wait after a few in a row.
    if (!RateLimitError.isInstance(error)) this.failuresInARow += 1;
    if (this.failuresInARow > (this.options.maxConsecutiveErrors ?? DEFAULT_MAX_CONSECUTIVE_ERRORS))
      throw error;
    return false;
  }

  /** Takes a value read; true when the job is done. */
  private async took(value: T): Promise<boolean> {
    this.reads += 1;
    this.failuresInARow = 0;
    this.lastError = undefined;
    this.value = value;
    // This read's body is remembered no later than now; only a later one is news.
    this.valueAt = this.parts.now();
    await this.options.onValue?.(value);
    if (this.options.isDone(value)) return true;
    this.pauseMs = grownPause(this.pauseMs, this.options.cadence ?? {}, this.options.intervalMs);
    return false;
  }
}
