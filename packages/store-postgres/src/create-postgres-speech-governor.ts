/**
 * The speech concurrency governor shared by server replicas: core's `SpeechGovernor`, with the slots of a
 * platform key kept as lease rows in PostgreSQL, so that all replicas on one key together stay within its
 * `concurrentSessions` (the limit learned from a 429 is stored for every replica to use).
 *
 * A slot is a lease row that expires unless renewed: this process renews the leases it holds while their
 * tasks are unfinished, so a replica that dies gives its slots back within one lease (30 s by default).
 * Taking a slot is one transaction that locks the key's row (`SELECT … FOR UPDATE`), drops expired leases,
 * counts the live ones and inserts a lease only below the limit, so two replicas never both take the last
 * slot. The key is stored as its sha256, never itself. Waiting callers queue in this process (FIFO, and
 * `front` for work that already had its turn) and try again whenever a slot of theirs frees or every
 * `retryMs`, since another replica's release sends no signal here. A slot given back while the database does
 * not answer is deleted as soon as it answers again (tried every `retryMs`), not left taken until its lease
 * runs out. The rows and their SQL are speech-lease-rows.ts; the waiting callers, speech-slot-queue.ts.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { AcquireOptions, Slot, SpeechGovernor } from '@polymodal/core';
import { LedgerError } from '@polymodal/core/errors';
import type pg from 'pg';
import { DEFAULT_SCHEMA } from './migrate.js';
import { SpeechLeaseRows } from './speech-lease-rows.js';
import { enqueue, notifyPositions, type Waiter } from './speech-slot-queue.js';

export const DEFAULT_SPEECH_LEASE_MS = 30_000;
const DEFAULT_INITIAL_LIMIT = 4;
const DEFAULT_RETRY_MS = 500;

export interface PostgresSpeechGovernorOptions {
  pool: pg.Pool;
  /** The platform key whose slots these are; only its sha256 reaches the database. */
  apiKey: string;
  schema?: string;
  /** The key's concurrentSessions when known (wins over a learned one). */
  limit?: number;
  /** Slots while no limit is known or learned. Default 4. */
  initialLimit?: number;
  /** How long a lease lives without renewal: a dead replica's slots return within it. Default 30 s. */
  leaseMs?: number;
  /** How often held leases are renewed. Default a third of `leaseMs`. */
  renewMs?: number;
  /** How often a waiting caller tries again while the key is full. Default 500 ms. */
  retryMs?: number;
  /** Apply pending migrations on first use (default true). */
  migrate?: boolean;
  /** Where failures to renew or release are reported (never with the key). */
  log?: { warn(message: string): void };
}

export interface PostgresSpeechGovernor extends SpeechGovernor {
  /** Resolves once writes under way (a learned limit, releases) are done. */
  settled(): Promise<void>;
  /** Stops renewing, gives back the leases held and fails the callers still waiting. */
  close(): Promise<void>;
}

/** One governor's state: its rows, the leases it holds or still has to give back, its callers and timers. */
interface GovernorState {
  rows: SpeechLeaseRows;
  /** "PostgreSQL (schema …)", for messages. */
  location: string;
  renewMs: number;
  retryMs: number;
  warn(message: string): void;
  /** The write of the last learned limit (releases wait for it). */
  learning: Promise<unknown>;
  held: Set<string>;
  /**
   * Leases given back while the database did not answer. They are deleted at the next chance (the next
   * slot taken, the renewal timer) instead of left to expire: after an outage, the key's slots would
   * otherwise stay taken for up to a lease (30 s) with nothing running in them.
   */
  unreleased: Set<string>;
  queue: Waiter[];
  /** Writes under way, for `settled`. */
  pending: Set<Promise<unknown>>;
  pumping: boolean;
  closed: boolean;
  timers: { retry?: NodeJS.Timeout; renew?: NodeJS.Timeout; release?: NodeJS.Timeout };
}

export function createPostgresSpeechGovernor(options: PostgresSpeechGovernorOptions): PostgresSpeechGovernor {
  const state = governorState(options);
  return {
    get limit() {
      return options.limit ?? state.rows.learned;
    },
    get active() {
      return state.held.size;
    },
    get queued() {
      return state.queue.length;
    },
    learn(concurrentLimit) {
      if (!Number.isInteger(concurrentLimit) || concurrentLimit < 1) return;
      state.learning = track(state, state.rows.storeLearned(concurrentLimit)).catch(() =>
        state.warn(
          'speech governor: the learned limit could not be stored; other replicas learn it themselves',
        ),
      );
    },
    acquire: (acquireOptions) => acquire(state, acquireOptions),
    settled: () => settled(state),
    close: () => close(state),
  };
}

function governorState(options: PostgresSpeechGovernorOptions): GovernorState {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const leaseMs = options.leaseMs ?? DEFAULT_SPEECH_LEASE_MS;
  const initialLimit = options.initialLimit ?? DEFAULT_INITIAL_LIMIT;
  const holder = `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;
  const rows = new SpeechLeaseRows(
    {
      pool: options.pool,
      schema,
      apiKey: options.apiKey,
      leaseMs,
      migrate: options.migrate ?? true,
      limitOf: (learned) => options.limit ?? learned ?? initialLimit,
    },
    holder,
  );
  return {
    rows,
    location: `PostgreSQL (schema ${schema})`,
    renewMs: options.renewMs ?? Math.max(1, Math.floor(leaseMs / 3)),
    retryMs: options.retryMs ?? DEFAULT_RETRY_MS,
    warn: (message) => options.log?.warn(message),
    learning: Promise.resolve(),
    held: new Set(),
    unreleased: new Set(),
    queue: [],
    pending: new Set(),
    pumping: false,
    closed: false,
    timers: {},
  };
}

function track<T>(state: GovernorState, promise: Promise<T>): Promise<T> {
  state.pending.add(promise);
  void promise.finally(() => state.pending.delete(promise)).catch(() => undefined);
  return promise;
}

function acquire(state: GovernorState, options: AcquireOptions = {}): Promise<Slot> {
  options.signal?.throwIfAborted();
  if (state.closed) {
    return Promise.reject(
      new LedgerError(`The speech governor at ${state.location} was closed.`, { location: state.location }),
    );
  }
  const granted = enqueue(state.queue, options);
  void pump(state);
  return granted;
}

/** Takes slots for the waiting callers, in order, while the key has free ones. */
async function pump(state: GovernorState): Promise<void> {
  if (state.pumping) return;
  state.pumping = true;
  try {
    while (state.queue.length > 0 && !state.closed) {
      let leaseId: string | undefined;
      try {
        leaseId = await state.rows.tryTake(state.unreleased);
      } catch (error) {
        // Without the database no slot can be counted: taking one anyway could overfill the key.
        const failure = new LedgerError(
          `The speech governor at ${state.location} could not take a slot, so nothing was sent to the platform (nothing paid); check that the database is running and reachable, then try again.`,
          { location: state.location, cause: error },
        );
        for (const waiter of state.queue.splice(0)) waiter.fail(failure);
        return;
      }
      if (leaseId === undefined) {
        schedule(state, state.retryMs);
        return;
      }
      const next = state.queue.shift();
      if (!next) {
        // The caller went away meanwhile: give the slot straight back.
        slotFor(state, leaseId).release();
        return;
      }
      next.grant(slotFor(state, leaseId));
      notifyPositions(state.queue);
    }
  } finally {
    state.pumping = false;
  }
}

function forget(state: GovernorState, givenBack: string[]): void {
  for (const leaseId of givenBack) state.unreleased.delete(leaseId);
}

/** Tries the queue again after `delayMs` (a slot of this process freed, or the key was full). */
function schedule(state: GovernorState, delayMs: number): void {
  if (state.closed || state.queue.length === 0) return;
  if (state.timers.retry) clearTimeout(state.timers.retry);
  state.timers.retry = setTimeout(() => {
    state.timers.retry = undefined;
    void pump(state);
  }, delayMs);
  state.timers.retry.unref();
}

function slotFor(state: GovernorState, leaseId: string): Slot {
  state.held.add(leaseId);
  startRenewing(state);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      state.held.delete(leaseId);
      // A limit learned from a 429 is stored before the refused slot is given back, so another replica
      // never sees the freed slot while it still counts with the old limit (that would be a second 429).
      track(
        state,
        state.learning.then(() => state.rows.deleteOne(leaseId)),
      )
        .catch(() => {
          state.unreleased.add(leaseId);
          retryReleasesSoon(state);
          state.warn(
            'speech governor: a slot could not be given back now; retrying until the database answers',
          );
        })
        .finally(() => schedule(state, 0));
    },
  };
}

/** Renews the leases held, every `renewMs`, so that they outlive their tasks but not a dead replica. */
function startRenewing(state: GovernorState): void {
  if (state.timers.renew || state.closed) return;
  state.timers.renew = setInterval(() => {
    if (state.held.size === 0) return;
    track(state, state.rows.renew([...state.held])).catch(() =>
      state.warn('speech governor: the database did not answer a lease renewal; retrying'),
    );
  }, state.renewMs);
  state.timers.renew.unref();
}

/** Deletes the leases given back during an outage, every `retryMs` until the database answers. */
function retryReleasesSoon(state: GovernorState): void {
  if (state.timers.release || state.closed || state.unreleased.size === 0) return;
  state.timers.release = setTimeout(() => {
    state.timers.release = undefined;
    const givenBack = [...state.unreleased];
    track(state, state.rows.delete(givenBack)).then(
      () => {
        forget(state, givenBack);
        schedule(state, 0);
      },
      () => retryReleasesSoon(state),
    );
  }, state.retryMs);
  state.timers.release.unref();
}

async function settled(state: GovernorState): Promise<void> {
  while (state.pending.size > 0) await Promise.allSettled([...state.pending]);
}

async function close(state: GovernorState): Promise<void> {
  state.closed = true;
  const { timers } = state;
  if (timers.renew) clearInterval(timers.renew);
  if (timers.retry) clearTimeout(timers.retry);
  if (timers.release) clearTimeout(timers.release);
  const failure = new LedgerError(`The speech governor at ${state.location} was closed.`, {
    location: state.location,
  });
  for (const waiter of state.queue.splice(0)) waiter.fail(failure);
  const mine = [...state.held, ...state.unreleased];
  state.held.clear();
  state.unreleased.clear();
  if (mine.length > 0) await track(state, state.rows.delete(mine)).catch(() => undefined);
  await settled(state);
}
