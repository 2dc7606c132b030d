/**
 * A tenant's daily credit budget (one per server context, so one per tenant): admits a paid submission
 * only when what the tenant spent or reserved today plus the call's estimate fits, and records the
 * estimate in the submission's ledger entry before anything is sent, so that later calls count it.
 *
 * What is counted comes from the job ledger only (`entryCredits`): any process on the same ledger counts
 * the same. Check-and-reserve is serialized per budget in this process, so concurrent calls of one tenant
 * never both pass on the same remainder. Across processes or replicas sharing a ledger, two submissions
 * checked in the same few milliseconds (one ledger read and one write) can both pass: the conservative
 * bound is that the day's budget can be exceeded by at most one call's estimate per other process
 * submitting at that instant. Entries reserve before their upload starts, so the window never spans an
 * upload.
 *
 * A restart of a job that ended without a charge (`retry_meeting` of a FAILED or CANCELLED job) is paid work
 * too: the platform charges on completion. `admitRestart` checks it against today like a new submission and
 * moves the entry's reservation to today, marked `RESTART_REQUESTED` until the job is read again (the states
 * a retried job goes through are not shown, so no platform state is invented); `undo()` puts the entry back
 * when the platform did not accept the restart. A job this ledger does not know (started elsewhere) is
 * checked the same way, but nothing can be recorded for it.
 *
 * Services whose price the platform does not publish (speech, video, flashcards, reading score) are not
 * admitted here: their minimum is "not shown" and no price is invented, so they count 0 credits, are
 * never refused, and are still listed by list_jobs.
 */
import { NOT_CREATED, type SubmissionPatch } from '@polymodal/core/jobs';
import type { JobLedger, LedgerEntry } from '@polymodal/core/ledger';
import { BudgetExceededError } from './budget-exceeded-error.js';
import {
  type CreditReservation,
  entryCredits,
  pendingCredits,
  RESERVATION_FIELD,
  readReservation,
} from './entry-credits.js';
import type { CreditEstimate } from './estimate-meeting-credits.js';
import { utcDay } from './utc-day.js';

export interface BudgetLimit {
  creditsPerDay: number;
  /** The setting that holds it, named in the refusal (`budget.creditsPerDay` or the variable). */
  setting: string;
}

export interface CreditAdmission {
  estimate: CreditEstimate;
  /** Names the thing being paid for in the refusal, e.g. "this recording". */
  what?: string;
  /** The ledger entry this submission has claimed, and the entry as it was before (see core's admit). */
  entry: LedgerEntry | undefined;
  previous: LedgerEntry | undefined;
  save(patch: SubmissionPatch): Promise<void>;
}

export interface CreditRestart {
  service: string;
  jobId: string;
  estimate: CreditEstimate;
  /** Names the thing being paid for in the refusal, e.g. "retrying this job". */
  what?: string;
}

/**
 * How long before midnight the entries of a day are looked for: an entry's reservation day comes from the
 * clock of the process that admitted it, its last write's time from the ledger's (a database's own clock
 * for PostgreSQL), and the two may disagree by a little. An hour is far more than any synchronised clocks
 * drift, and keeps a day's count at the cost of that day.
 */
const CLOCK_SLACK_MS = 60 * 60 * 1000;

/** The ledger status of an entry whose job was asked to restart and has not been read since. */
export const RESTART_REQUESTED = 'RESTART_REQUESTED';

export interface CreditsToday {
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  /** Credits the platform reported as charged for jobs submitted today. */
  spent: number;
  /** Estimates (or the platform's figures) of today's jobs not charged yet: running or of unknown outcome. */
  reserved: number;
  /** The daily budget, when one is set. */
  creditsPerDay?: number;
  /** What is left of it today (never below 0), when a budget is set. */
  remaining?: number;
}

export interface CreditBudget {
  /** The budget that applies now; undefined means no limit. */
  limit(): BudgetLimit | undefined;
  /** Throws BudgetExceededError, or records the reservation in the claimed entry. */
  admit(admission: CreditAdmission): Promise<void>;
  /**
   * Throws BudgetExceededError, or reserves the restart today in the job's entry (when there is one);
   * `undo()` restores the entry when the restart was refused by the platform.
   */
  admitRestart(restart: CreditRestart): Promise<{ undo(): Promise<void> }>;
  /** Today's credits; from `entries` when the caller has just listed the whole ledger (one read, not two). */
  today(entries?: readonly LedgerEntry[]): Promise<CreditsToday>;
}

export interface CreditBudgetOptions {
  ledger: JobLedger;
  /** The tenant, named in refusals; undefined for a server without tenants. */
  tenant?: string | undefined;
  /** Read on every call, so that a reloaded tenants file applies at once. */
  limit: () => BudgetLimit | undefined;
  /** Clock (epoch ms); injectable for tests. */
  now?: () => number;
}

/**
 * Each ledger's budget, so that list_jobs (registered by every server, and once by the combined one, with
 * the context's ledger) can show the budget of the context it lists without another option to thread.
 */
const budgets = new WeakMap<JobLedger, CreditBudget>();

/** The budget created on this ledger, if any. */
export function creditBudgetOf(ledger: JobLedger): CreditBudget | undefined {
  return budgets.get(ledger);
}

export function createCreditBudget(options: CreditBudgetOptions): CreditBudget {
  const budget = buildCreditBudget(options);
  budgets.set(options.ledger, budget);
  return budget;
}

/** Today's credits of a ledger that has no budget of its own (counted the same way, against no limit). */
export function creditsTodayWithoutBudget(ledger: JobLedger): Promise<CreditsToday> {
  return buildCreditBudget({ ledger, limit: () => undefined }).today();
}

/** One budget's settings and the queue its check-and-reserve steps wait in. */
interface BudgetState {
  readonly options: CreditBudgetOptions;
  readonly now: () => number;
  queue: Promise<unknown>;
}

function buildCreditBudget(options: CreditBudgetOptions): CreditBudget {
  const state: BudgetState = { options, now: options.now ?? Date.now, queue: Promise.resolve() };
  return {
    limit: options.limit,
    admitRestart: (restart) => serialize(state, () => admitRestart(state, restart)),
    admit: (admission) => serialize(state, () => admit(state, admission)),
    today: (entries) => creditsToday(state, entries),
  };
}

/** Runs `task` after every earlier check-and-reserve of this budget. */
function serialize<T>(state: BudgetState, task: () => Promise<T>): Promise<T> {
  const next = state.queue.then(task, task);
  state.queue = next.catch(() => undefined);
  return next;
}

async function countDay(
  state: BudgetState,
  day: string,
  counting: { except?: LedgerEntry | undefined; listed?: readonly LedgerEntry[] | undefined } = {},
) {
  // An entry counts on the day of its reservation, or of its creation: it was written that day or later,
  // so only entries written since then are read (CLOCK_SLACK_MS earlier, for clocks that disagree).
  const { except } = counting;
  const entries =
    counting.listed ??
    (await state.options.ledger.list({
      updatedSince: new Date(Date.parse(day) - CLOCK_SLACK_MS).toISOString(),
    }));
  let spent = 0;
  let reserved = 0;
  for (const entry of entries) {
    if (except && entry.service === except.service && entry.fingerprint === except.fingerprint) continue;
    for (const credits of [entryCredits(entry), pendingCredits(entry)]) {
      if (credits?.day !== day) continue;
      spent += credits.charged;
      reserved += credits.reserved;
    }
  }
  return { spent, reserved };
}

/** Throws BudgetExceededError when `estimate` does not fit in what is left of `day`. */
async function check(
  state: BudgetState,
  day: string,
  estimate: CreditEstimate,
  counting: { except: LedgerEntry | undefined; earlier: number; what: string | undefined },
): Promise<void> {
  const limit = state.options.limit();
  if (limit === undefined) return;
  const counted = await countDay(state, day, { except: counting.except });
  const spent = counted.spent + counted.reserved + counting.earlier;
  if (spent + estimate.credits <= limit.creditsPerDay) return;
  throw new BudgetExceededError(
    {
      creditsPerDay: limit.creditsPerDay,
      spent,
      cost: estimate.credits,
      basis: estimate.basis,
      day,
      tenant: state.options.tenant,
      setting: limit.setting,
    },
    counting.what,
  );
}

async function admitRestart(state: BudgetState, restart: CreditRestart): Promise<{ undo(): Promise<void> }> {
  const { ledger } = state.options;
  const entry = await ledger.findById(restart.service, restart.jobId);
  const day = utcDay(state.now());
  // The entry's own job counts nothing while it is FAILED or CANCELLED; what it was charged today
  // (only a replaced earlier job can have been) still counts.
  const previous = entry ? entryCredits(entry) : undefined;
  const earlier = previous && previous.day === day ? previous.charged : 0;
  await check(state, day, restart.estimate, { except: entry, earlier, what: restart.what });
  if (!entry) return { undo: async () => undefined };
  const reservation: CreditReservation = {
    day,
    credits: restart.estimate.credits,
    basis: restart.estimate.basis,
    ...(earlier > 0 ? { earlier } : {}),
  };
  await ledger.updateById(restart.service, restart.jobId, {
    lastStatus: RESTART_REQUESTED,
    request: { ...entry.request, [RESERVATION_FIELD]: reservation },
  });
  return {
    async undo() {
      await ledger.updateById(restart.service, restart.jobId, {
        lastStatus: entry.lastStatus,
        request: entry.request,
      });
    },
  };
}

async function admit(state: BudgetState, admission: CreditAdmission): Promise<void> {
  const { estimate, entry, previous } = admission;
  // NOT_CREATED proves the earlier attempt sent nothing that could be charged: that one is checked anew.
  const interrupted =
    previous && previous.id === null && previous.lastStatus !== NOT_CREATED
      ? readReservation(previous)
      : undefined;
  if (interrupted) {
    // An earlier attempt of this very submission was admitted and interrupted (it may have uploaded
    // or even created the job): going on costs nothing new, so it is never refused, and it keeps
    // counting on the day it was admitted.
    await admission.save({ request: { ...entry?.request, [RESERVATION_FIELD]: interrupted } });
    return;
  }
  const day = utcDay(state.now());
  // The claim replaces an earlier job of the same request (force, or after a failure): what that job
  // was charged today still counts.
  const replaced = previous && previous.id !== null ? entryCredits(previous) : undefined;
  const earlier = replaced && replaced.day === day ? replaced.charged + replaced.reserved : undefined;
  await check(state, day, estimate, { except: entry, earlier: earlier ?? 0, what: admission.what });
  const reservation: CreditReservation = {
    day,
    credits: estimate.credits,
    basis: estimate.basis,
    ...(earlier ? { earlier } : {}),
  };
  await admission.save({ request: { ...entry?.request, [RESERVATION_FIELD]: reservation } });
}

async function creditsToday(state: BudgetState, listed?: readonly LedgerEntry[]): Promise<CreditsToday> {
  const day = utcDay(state.now());
  const { spent, reserved } = await countDay(state, day, { listed });
  const limit = state.options.limit();
  return {
    day,
    spent,
    reserved,
    ...(limit === undefined
      ? {}
      : {
          creditsPerDay: limit.creditsPerDay,
          remaining: Math.max(0, limit.creditsPerDay - spent - reserved),
        }),
  };
}
