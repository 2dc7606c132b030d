/**
 * The PostgreSQL ledger against a real PostgreSQL: the behaviours core's file store guarantees (atomic
 * insert, compare-and-set, null clears, lists, services apart), also between two pools as two replicas.
 */
import { ConfigError, LedgerError, ValidationError } from '@polymodal/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresJobLedger, type PostgresJobLedger } from '../src/index.js';
import { adminPool, startPostgres, type TestPostgres } from './helpers/start-postgres.js';

let server: TestPostgres;
const opened: PostgresJobLedger[] = [];

beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.destroy();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((ledger) => ledger.close()));
});

/** A ledger in a schema of its own (or in `schema`, to share it like a second replica). */
function open(schema = server.newSchema()): PostgresJobLedger {
  const ledger = createPostgresJobLedger({ connectionString: server.url, schema });
  opened.push(ledger);
  return ledger;
}

describe('createPostgresJobLedger', () => {
  it('inserts, finds by fingerprint and by id, and updates', async () => {
    const ledger = open();
    const { inserted, entry: recorded } = await ledger.insert({
      service: 'meeting',
      fingerprint: 'fp1',
      id: null,
      receipt: 'rcpt',
      receiptIssuedAt: '2025-01-01T00:00:00.000Z',
      lastStatus: 'UPLOADED',
      request: { file: '/x.wav', speakers: ['Ann', 'Bo'], nested: { ok: true } },
    });
    expect(inserted).toBe(true);
    expect(recorded.createdAt).toBe(recorded.updatedAt);
    expect(recorded.revision).toBe(1);
    expect(recorded.receiptIssuedAt).toBe('2025-01-01T00:00:00.000Z');
    expect(recorded.request).toEqual({ file: '/x.wav', speakers: ['Ann', 'Bo'], nested: { ok: true } });
    expect(await ledger.findByFingerprint('meeting', 'fp1')).toEqual(recorded);
    expect(await ledger.findById('meeting', 'job-1')).toBeUndefined();

    const updated = await ledger.update('meeting', 'fp1', { id: 'job-1', lastStatus: 'PENDING' });
    expect(updated).toMatchObject({
      id: 'job-1',
      receipt: 'rcpt',
      lastStatus: 'PENDING',
      createdAt: recorded.createdAt,
      revision: 2,
    });
    expect(await ledger.findById('meeting', 'job-1')).toEqual(updated);

    const byId = await ledger.updateById('meeting', 'job-1', { lastStatus: 'COMPLETED' });
    expect(byId?.lastStatus).toBe('COMPLETED');
    expect((await ledger.findByFingerprint('meeting', 'fp1'))?.lastStatus).toBe('COMPLETED');
    expect(await ledger.update('meeting', 'unknown', { lastStatus: 'X' })).toBeUndefined();
    expect(await ledger.updateById('meeting', 'no-such-job', { lastStatus: 'X' })).toBeUndefined();
  });

  it('keeps services apart and lists newest first with a limit', async () => {
    const ledger = open();
    for (const [index, service] of ['meeting', 'speech', 'meeting'].entries()) {
      await ledger.insert({
        service,
        fingerprint: `fp${index}`,
        id: `id${index}`,
        lastStatus: 'PENDING',
        createdAt: `2025-01-0${index + 1}T00:00:00.000Z`,
      });
    }
    // The same fingerprint and job id in another service is another entry.
    await ledger.insert({
      service: 'speech',
      fingerprint: 'fp0',
      id: 'id0',
      lastStatus: 'OTHER',
      createdAt: '2024-12-01T00:00:00.000Z',
    });
    expect((await ledger.list()).map((entry) => entry.id)).toEqual(['id2', 'id1', 'id0', 'id0']);
    expect((await ledger.list({ service: 'meeting' })).map((entry) => entry.id)).toEqual(['id2', 'id0']);
    expect((await ledger.list({ limit: 1 })).map((entry) => entry.id)).toEqual(['id2']);
    expect(await ledger.list({ limit: 0 })).toEqual([]);
    expect((await ledger.findById('speech', 'id0'))?.lastStatus).toBe('OTHER');
    expect((await ledger.findById('meeting', 'id0'))?.lastStatus).toBe('PENDING');
    expect(await ledger.findById('speech', 'id2')).toBeUndefined();
    await ledger.updateById('speech', 'id0', { lastStatus: 'DONE' });
    expect((await ledger.findByFingerprint('meeting', 'fp0'))?.lastStatus).toBe('PENDING');
  });

  it('lists entries created in one burst newest first', async () => {
    const ledger = open();
    for (let index = 0; index < 5; index++) {
      await ledger.insert({
        service: 'meeting',
        fingerprint: `fp${index}`,
        id: `j${index}`,
        lastStatus: 'P',
      });
    }
    expect((await ledger.list({ service: 'meeting', limit: 3 })).map((entry) => entry.id)).toEqual([
      'j4',
      'j3',
      'j2',
    ]);
  });

  it('insert of an existing entry leaves it alone; of 20 concurrent inserters exactly one wins', async () => {
    const ledger = open();
    const first = await ledger.insert({
      service: 'meeting',
      fingerprint: 'fp',
      id: null,
      lastStatus: 'SUBMITTING',
    });
    const second = await ledger.insert({
      service: 'meeting',
      fingerprint: 'fp',
      id: 'other',
      lastStatus: 'X',
    });
    expect(first.inserted).toBe(true);
    expect(second).toEqual({ inserted: false, entry: first.entry });

    const racing = await Promise.all(
      Array.from({ length: 20 }, (_unused, index) =>
        ledger.insert({ service: 'meeting', fingerprint: 'race', id: null, lastStatus: `caller-${index}` }),
      ),
    );
    const winners = racing.filter((result) => result.inserted);
    expect(winners).toHaveLength(1);
    const winner = winners[0]?.entry.lastStatus;
    // Every loser is told who won, and the ledger holds the winner's entry.
    expect(new Set(racing.map((result) => result.entry.lastStatus))).toEqual(new Set([winner]));
    expect((await ledger.findByFingerprint('meeting', 'race'))?.lastStatus).toBe(winner);
  });

  it('compare-and-set applies a patch only on the revision it was given; of 10 writers one wins', async () => {
    const ledger = open();
    const { entry } = await ledger.insert({
      service: 'meeting',
      fingerprint: 'fp',
      id: null,
      lastStatus: 'A',
    });
    const next = await ledger.compareAndSet('meeting', 'fp', entry.revision, { lastStatus: 'B' });
    expect(next).toMatchObject({ lastStatus: 'B', revision: entry.revision + 1 });
    expect(await ledger.compareAndSet('meeting', 'fp', entry.revision, { lastStatus: 'C' })).toBeUndefined();
    expect((await ledger.findByFingerprint('meeting', 'fp'))?.lastStatus).toBe('B');

    const current = (await ledger.findByFingerprint('meeting', 'fp'))?.revision ?? 0;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_unused, index) =>
        ledger.compareAndSet('meeting', 'fp', current, { lastStatus: `writer-${index}` }),
      ),
    );
    const won = results.filter((result) => result !== undefined);
    expect(won).toHaveLength(1);
    expect(await ledger.findByFingerprint('meeting', 'fp')).toMatchObject({
      lastStatus: won[0]?.lastStatus,
      revision: current + 1,
    });
    expect(await ledger.compareAndSet('meeting', 'missing', 1, { lastStatus: 'X' })).toBeUndefined();
    expect(await ledger.compareAndSet('meeting', 'fp', 1.5, { lastStatus: 'X' })).toBeUndefined();
  });

  it('null clears a field, undefined leaves it', async () => {
    const ledger = open();
    await ledger.insert({
      service: 'meeting',
      fingerprint: 'fp',
      id: 'j',
      receipt: 'r',
      title: 'Weekly',
      lastStatus: 'FAILED',
      claim: { owner: 'host/1/a', expiresAt: '2030-01-01T00:00:00.000Z' },
      nextReadAt: '2030-01-01T00:00:05.000Z',
      data: { parts: [1, 2] },
    });
    const cleared = await ledger.update('meeting', 'fp', {
      id: null,
      receipt: null,
      claim: null,
      nextReadAt: null,
      title: undefined,
    });
    expect(cleared).toMatchObject({
      id: null,
      receipt: null,
      claim: null,
      nextReadAt: null,
      title: 'Weekly',
    });
    expect(cleared?.data).toEqual({ parts: [1, 2] });
    expect(await ledger.findByFingerprint('meeting', 'fp')).toEqual(cleared);
    // A cleared id no longer finds the entry.
    expect(await ledger.findById('meeting', 'j')).toBeUndefined();
  });

  it('keeps every patch of 30 concurrent updates, fields it has no column for included', async () => {
    const ledger = open();
    await ledger.insert({ service: 'meeting', fingerprint: 'fp', id: null, lastStatus: 'UPLOADED' });
    await Promise.all(
      Array.from({ length: 30 }, (_unused, index) =>
        ledger.update('meeting', 'fp', { request: undefined, [`field${index}`]: index } as never),
      ),
    );
    const entry = (await ledger.findByFingerprint('meeting', 'fp')) as unknown as Record<string, unknown>;
    for (let index = 0; index < 30; index++) expect(entry[`field${index}`]).toBe(index);
    expect(entry.revision).toBe(31);
  });

  it('two replicas (two pools) on one schema lose no compare-and-set increment', async () => {
    const schema = server.newSchema();
    const replicas = [open(schema), open(schema)];
    await replicas[0]?.insert({
      service: 'meeting',
      fingerprint: 'counter',
      id: null,
      lastStatus: 'COUNTER',
    });
    const count = 40;
    await Promise.all(
      replicas.map(async (ledger) => {
        for (let index = 0; index < count; index++) {
          for (;;) {
            const entry = await ledger.findByFingerprint('meeting', 'counter');
            const total = Number(entry?.data?.count ?? 0);
            if (
              entry &&
              (await ledger.compareAndSet('meeting', 'counter', entry.revision, {
                data: { count: total + 1 },
              }))
            ) {
              break;
            }
          }
        }
      }),
    );
    expect((await replicas[1]?.findByFingerprint('meeting', 'counter'))?.data?.count).toBe(2 * count);
  });

  it('refuses service names the file store refuses, so entries move between the stores', async () => {
    const ledger = open();
    await expect(ledger.findByFingerprint('../x', 'fp')).rejects.toSatisfy(ValidationError.isInstance);
    await expect(ledger.list({ service: '' })).rejects.toThrow('Invalid service name');
  });

  it('shows where it is without the password, in its location and in every error', async () => {
    const ledger = open();
    expect(ledger.location).toBe(`postgres://postgres:***@127.0.0.1:${server.port}/postgres`);
    // Another failure than a connection one: the table's own constraint.
    const error = await ledger
      .insert({ service: 'meeting', fingerprint: 'fp', id: null, lastStatus: null as never })
      .catch((caught: unknown) => caught);
    expect(LedgerError.isInstance(error)).toBe(true);
    expect((error as LedgerError).location).toBe(ledger.location);
    expect((error as Error).message).toContain('failed a job ledger query');
    expect(`${(error as Error).message} ${JSON.stringify(error)}`).not.toContain(server.password);
  });

  it('without migrations says how to create the tables; with a caller pool leaves the pool open', async () => {
    const bare = createPostgresJobLedger({
      connectionString: server.url,
      schema: server.newSchema(),
      migrate: false,
    });
    opened.push(bare);
    const error = await bare.findByFingerprint('meeting', 'fp').catch((caught: unknown) => caught);
    expect(LedgerError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('polymodal-migrate');

    const pool = adminPool(server.url);
    try {
      const borrowed = createPostgresJobLedger({ pool, schema: server.newSchema() });
      expect(borrowed.location).toBe(`postgres://postgres:***@127.0.0.1:${server.port}/postgres`);
      await borrowed.ready();
      await borrowed.close();
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });

  it('refuses to start without a PostgreSQL URL, naming the variable and never the value', () => {
    expect(() => createPostgresJobLedger({ env: {} })).toThrow(/POLYMODAL_DATABASE_URL/);
    let caught: unknown;
    try {
      createPostgresJobLedger({ connectionString: 'mysql://root:hunter22@db/app' });
    } catch (error) {
      caught = error;
    }
    expect(ConfigError.isInstance(caught)).toBe(true);
    expect((caught as Error).message).not.toContain('hunter22');
  });
});
