/**
 * The speech governor shared by replicas, against a real PostgreSQL: two governors with a pool each stand
 * in for two replicas on one platform key. What a user notices: never more tasks at once than the key
 * allows, whichever replica runs them, and the slots of a replica that died come back within the lease.
 */
import type { Slot } from '@polymodal/core';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createPostgresPool,
  createPostgresSpeechGovernor,
  type PostgresSpeechGovernor,
} from '../src/index.js';
import { adminPool, startPostgres, type TestPostgres } from './support/start-postgres.js';

const KEY = 'pm_live_sharedSpeechKey77';
let server: TestPostgres;
let admin: pg.Pool;
const pools: pg.Pool[] = [];
const governors: PostgresSpeechGovernor[] = [];

beforeAll(async () => {
  server = await startPostgres();
  admin = adminPool(server.url);
});
afterAll(async () => {
  await admin?.end();
  await server?.destroy();
});
afterEach(async () => {
  await Promise.all(governors.splice(0).map((governor) => governor.close()));
  await Promise.all(pools.splice(0).map((pool) => (pool.ended ? undefined : pool.end())));
});

/** A governor on a pool of its own: one replica. */
function replica(schema: string, options: { leaseMs?: number; renewMs?: number } = {}) {
  const pool = createPostgresPool({ connectionString: server.url, poolSize: 3 });
  pools.push(pool);
  const governor = createPostgresSpeechGovernor({ pool, apiKey: KEY, schema, retryMs: 50, ...options });
  governors.push(governor);
  return { pool, governor };
}

async function liveLeases(schema: string): Promise<number> {
  const { rows } = await admin.query<{ count: string }>(
    `SELECT count(*) FROM "${schema}".speech_governor_leases WHERE expires_at > now()`,
  );
  return Number(rows[0]?.count ?? 0);
}

describe('createPostgresSpeechGovernor', () => {
  it('two replicas on one key with a learned limit of 3: never more than 3 slots at once, all work done', async () => {
    const schema = server.newSchema();
    const first = replica(schema).governor;
    const second = replica(schema).governor;
    first.learn(3);
    await first.settled();
    let running = 0;
    let peak = 0;
    let peakLeases = 0;
    // The first slots are held until three are held at once, so the limit is reached however slowly the
    // replicas acquire (with each slot held 20 ms, a busy machine let them go before a third was taken).
    let filled: () => void = () => undefined;
    const full = new Promise<void>((resolve) => {
      filled = resolve;
    });
    const task = async (governor: PostgresSpeechGovernor) => {
      const slot = await governor.acquire();
      running += 1;
      peak = Math.max(peak, running);
      if (running === 3) filled();
      peakLeases = Math.max(peakLeases, await liveLeases(schema));
      await full;
      await new Promise((resolve) => setTimeout(resolve, 20));
      running -= 1;
      slot.release();
    };
    await Promise.all(Array.from({ length: 12 }, (_, index) => task(index % 2 === 0 ? first : second)));
    expect(peak).toBe(3);
    expect(peakLeases).toBeLessThanOrEqual(3);
    // The second replica never saw a 429: it took the limit the first one stored.
    expect(second.limit).toBe(3);
    await Promise.all([first.settled(), second.settled()]);
    expect(await liveLeases(schema)).toBe(0);
    // Only the key's sha256 is stored.
    const stored = await admin.query(`SELECT key_sha256 FROM "${schema}".speech_governor_keys`);
    expect(JSON.stringify(stored.rows)).not.toContain(KEY);
  });

  it("a dead replica's slots stay taken while it renews them and come back within the lease once it stops", async () => {
    const schema = server.newSchema();
    // A lease that outlasts a stall of this process (the replicas and the test share it) by 3.5 s: with
    // 1.5 s and renewals every 300 ms, a busy machine could let a lease lapse before its renewal ran.
    const lease = { leaseMs: 4_000, renewMs: 500 };
    const doomed = replica(schema, lease);
    const survivor = replica(schema, lease).governor;
    doomed.governor.learn(3);
    await doomed.governor.settled();
    const slots: Slot[] = await Promise.all([1, 2, 3].map(() => doomed.governor.acquire()));
    expect(slots).toHaveLength(3);
    let granted = false;
    const waiting = survivor.acquire().then((slot) => {
      granted = true;
      return slot;
    });
    // Longer than a lease: renewals keep the slots, so the survivor still waits.
    await new Promise((resolve) => setTimeout(resolve, lease.leaseMs + 1_000));
    expect(granted).toBe(false);
    expect(await liveLeases(schema)).toBe(3);

    // The replica dies: its connections go, nothing is released, nothing renewed.
    const diedAt = Date.now();
    await doomed.pool.end();
    const slot = await waiting;
    // Within the lease and a busy machine's delays.
    expect(Date.now() - diedAt).toBeLessThan(lease.leaseMs + 3_000);
    expect(survivor.active).toBe(1);
    slot.release();
  });

  it('a slot given back while the database is down is free again once it is back, not after the lease', async () => {
    const schema = server.newSchema();
    // A lease far longer than the test: only the release retried after the outage can free the slot.
    const busy = replica(schema, { leaseMs: 120_000 }).governor;
    const other = replica(schema, { leaseMs: 120_000 }).governor;
    busy.learn(1);
    await busy.settled();
    const slot = await busy.acquire();
    await server.stop();
    try {
      slot.release();
      await busy.settled();
      // Without the database no slot can be counted: a caller is refused, nothing is granted blindly.
      await expect(other.acquire()).rejects.toThrow(/could not take a slot, so nothing was sent/);
    } finally {
      await server.start();
    }
    const backAt = Date.now();
    // Bounded far below the lease, so that a slot left taken fails here rather than waiting it out.
    const freed = await other.acquire({ signal: AbortSignal.timeout(10_000) });
    expect(Date.now() - backAt).toBeLessThan(10_000);
    expect(await liveLeases(schema)).toBe(1);
    freed.release();
  }, 30_000);
});
