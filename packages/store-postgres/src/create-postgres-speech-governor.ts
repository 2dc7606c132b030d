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
 * runs out.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { AcquireOptions, Slot, SpeechGovernor } from '@polymodal/core';
import { LedgerError } from '@polymodal/core/errors';
import type pg from 'pg';
import { DEFAULT_SCHEMA, migrate, quoteSchema } from './migrate.js';

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

interface Waiter {
  grant: (slot: Slot) => void;
  fail: (reason: unknown) => void;
  onPosition?: ((position: number) => void) | undefined;
  lastPosition: number;
}

export function createPostgresSpeechGovernor(options: PostgresSpeechGovernorOptions): PostgresSpeechGovernor {
  const { pool } = options;
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const keys = `${quoteSchema(schema)}.speech_governor_keys`;
  const leases = `${quoteSchema(schema)}.speech_governor_leases`;
  const keySha256 = createHash('sha256').update(options.apiKey).digest('hex');
  const leaseMs = options.leaseMs ?? DEFAULT_SPEECH_LEASE_MS;
  const renewMs = options.renewMs ?? Math.max(1, Math.floor(leaseMs / 3));
  const retryMs = options.retryMs ?? DEFAULT_RETRY_MS;
  const initialLimit = options.initialLimit ?? DEFAULT_INITIAL_LIMIT;
  const holder = `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;
  const location = `PostgreSQL (schema ${schema})`;
  let learned: number | undefined;
  /** The write of the last learned limit (releases wait for it). */
  let learning: Promise<unknown> = Promise.resolve();
  const held = new Set<string>();
  /**
   * Leases given back while the database did not answer. They are deleted at the next chance (the next
   * slot taken, the renewal timer) instead of left to expire: after an outage, the key's slots would
   * otherwise stay taken for up to a lease (30 s) with nothing running in them.
   */
  const unreleased = new Set<string>();
  const queue: Waiter[] = [];
  const pending = new Set<Promise<unknown>>();
  let prepared: Promise<void> | undefined;
  let pumping = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let renewTimer: NodeJS.Timeout | undefined;
  let releaseTimer: NodeJS.Timeout | undefined;
  let closed = false;

  function track<T>(promise: Promise<T>): Promise<T> {
    pending.add(promise);
    void promise.finally(() => pending.delete(promise)).catch(() => undefined);
    return promise;
  }

  function warn(message: string): void {
    options.log?.warn(message);
  }

  function prepare(): Promise<void> {
    prepared ??= (async () => {
      if (options.migrate ?? true) await migrate(pool, { schema });
    })().catch((error: unknown) => {
      prepared = undefined;
      throw error;
    });
    return prepared;
  }

  /** One transaction: a lease id when a slot was free, undefined when the key is full. */
  async function tryTake(): Promise<string | undefined> {
    await prepare();
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`INSERT INTO ${keys} (key_sha256) VALUES ($1) ON CONFLICT DO NOTHING`, [keySha256]);
      // The key's row lock serialises every replica's count-then-insert on this key.
      const row = await client.query<{ learned_limit: number | null }>(
        `SELECT learned_limit FROM ${keys} WHERE key_sha256 = $1 FOR UPDATE`,
        [keySha256],
      );
      learned = row.rows[0]?.learned_limit ?? learned;
      const limit = options.limit ?? learned ?? initialLimit;
      await client.query(`DELETE FROM ${leases} WHERE key_sha256 = $1 AND expires_at <= now()`, [keySha256]);
      const givenBack = [...unreleased];
      if (givenBack.length > 0) {
        await client.query(`DELETE FROM ${leases} WHERE lease_id = ANY($1::text[])`, [givenBack]);
      }
      const live = await client.query<{ count: string }>(
        `SELECT count(*) FROM ${leases} WHERE key_sha256 = $1`,
        [keySha256],
      );
      if (Number(live.rows[0]?.count ?? 0) >= limit) {
        await client.query('COMMIT');
        forget(givenBack);
        return undefined;
      }
      const leaseId = randomUUID();
      await client.query(
        `INSERT INTO ${leases} (lease_id, key_sha256, holder, expires_at)
         VALUES ($1, $2, $3, now() + make_interval(secs => $4::double precision / 1000))`,
        [leaseId, keySha256, holder, leaseMs],
      );
      await client.query('COMMIT');
      forget(givenBack);
      return leaseId;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  function forget(givenBack: string[]): void {
    for (const leaseId of givenBack) unreleased.delete(leaseId);
  }

  /** Deletes the leases given back during an outage, every `retryMs` until the database answers. */
  function retryReleasesSoon(): void {
    if (releaseTimer || closed || unreleased.size === 0) return;
    releaseTimer = setTimeout(() => {
      releaseTimer = undefined;
      const givenBack = [...unreleased];
      track(pool.query(`DELETE FROM ${leases} WHERE lease_id = ANY($1::text[])`, [givenBack])).then(
        () => {
          forget(givenBack);
          schedule(0);
        },
        () => retryReleasesSoon(),
      );
    }, retryMs);
    releaseTimer.unref();
  }

  function slotFor(leaseId: string): Slot {
    held.add(leaseId);
    startRenewing();
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        held.delete(leaseId);
        // A limit learned from a 429 is stored before the refused slot is given back, so another replica
        // never sees the freed slot while it still counts with the old limit (that would be a second 429).
        track(learning.then(() => pool.query(`DELETE FROM ${leases} WHERE lease_id = $1`, [leaseId])))
          .catch(() => {
            unreleased.add(leaseId);
            retryReleasesSoon();
            warn('speech governor: a slot could not be given back now; retrying until the database answers');
          })
          .finally(() => schedule(0));
      },
    };
  }

  function startRenewing(): void {
    if (renewTimer || closed) return;
    renewTimer = setInterval(() => {
      if (held.size === 0) return;
      track(
        pool.query(
          `UPDATE ${leases} SET expires_at = now() + make_interval(secs => $2::double precision / 1000)
           WHERE lease_id = ANY($1::text[])`,
          [[...held], leaseMs],
        ),
      ).catch(() => warn('speech governor: the database did not answer a lease renewal; retrying'));
    }, renewMs);
    renewTimer.unref();
  }

  function schedule(delayMs: number): void {
    if (closed || queue.length === 0) return;
    if (retryTimer) clearTimeout(retryTimer);
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void pump();
    }, delayMs);
    retryTimer.unref();
  }

  async function pump(): Promise<void> {
    if (pumping) return;
    pumping = true;
    try {
      while (queue.length > 0 && !closed) {
        let leaseId: string | undefined;
        try {
          leaseId = await tryTake();
        } catch (error) {
          // Without the database no slot can be counted: taking one anyway could overfill the key.
          const failure = new LedgerError(
            `The speech governor at ${location} could not take a slot, so nothing was sent to the platform (nothing paid); check that the database is running and reachable, then try again.`,
            { location, cause: error },
          );
          for (const waiter of queue.splice(0)) waiter.fail(failure);
          return;
        }
        if (leaseId === undefined) {
          schedule(retryMs);
          return;
        }
        const next = queue.shift();
        if (!next) {
          // The caller went away meanwhile: give the slot straight back.
          slotFor(leaseId).release();
          return;
        }
        next.grant(slotFor(leaseId));
        notifyPositions();
      }
    } finally {
      pumping = false;
    }
  }

  function notifyPositions(): void {
    queue.forEach((waiter, index) => {
      const position = index + 1;
      if (position !== waiter.lastPosition) {
        waiter.lastPosition = position;
        try {
          waiter.onPosition?.(position);
        } catch {
          // A listener's failure must not break the queue.
        }
      }
    });
  }

  return {
    get limit() {
      return options.limit ?? learned;
    },
    get active() {
      return held.size;
    },
    get queued() {
      return queue.length;
    },
    learn(concurrentLimit) {
      if (!Number.isInteger(concurrentLimit) || concurrentLimit < 1) return;
      learned = concurrentLimit;
      learning = track(
        prepare().then(() =>
          pool.query(
            `INSERT INTO ${keys} (key_sha256, learned_limit) VALUES ($1, $2)
             ON CONFLICT (key_sha256) DO UPDATE SET learned_limit = EXCLUDED.learned_limit, updated_at = now()`,
            [keySha256, concurrentLimit],
          ),
        ),
      ).catch(() =>
        warn('speech governor: the learned limit could not be stored; other replicas learn it themselves'),
      );
    },
    acquire(acquireOptions: AcquireOptions = {}) {
      const { signal } = acquireOptions;
      signal?.throwIfAborted();
      if (closed) {
        return Promise.reject(
          new LedgerError(`The speech governor at ${location} was closed.`, { location }),
        );
      }
      return new Promise<Slot>((resolve, reject) => {
        const onAbort = () => {
          const index = queue.indexOf(waiter);
          if (index >= 0) queue.splice(index, 1);
          notifyPositions();
          reject(signal?.reason);
        };
        const waiter: Waiter = {
          grant: (slot) => {
            signal?.removeEventListener('abort', onAbort);
            resolve(slot);
          },
          fail: (reason) => {
            signal?.removeEventListener('abort', onAbort);
            reject(reason);
          },
          onPosition: acquireOptions.onPosition,
          lastPosition: 0,
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        if (acquireOptions.front) queue.unshift(waiter);
        else queue.push(waiter);
        // Positions are told only to callers that could not be served at once, as core's governor does.
        if (queue.length > 1) notifyPositions();
        void pump();
      });
    },
    async settled() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
    async close() {
      closed = true;
      if (renewTimer) clearInterval(renewTimer);
      if (retryTimer) clearTimeout(retryTimer);
      if (releaseTimer) clearTimeout(releaseTimer);
      const failure = new LedgerError(`The speech governor at ${location} was closed.`, { location });
      for (const waiter of queue.splice(0)) waiter.fail(failure);
      const mine = [...held, ...unreleased];
      held.clear();
      unreleased.clear();
      if (mine.length > 0) {
        await track(pool.query(`DELETE FROM ${leases} WHERE lease_id = ANY($1::text[])`, [mine])).catch(
          () => undefined,
        );
      }
      await this.settled();
    },
  };
}
