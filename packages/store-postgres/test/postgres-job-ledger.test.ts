/**
 * The PostgreSQL ledger against a real PostgreSQL: core's job-ledger contract, the one the file store runs
 * too (atomic insert, compare-and-set, null clears, lists, services apart; fields without a column of their
 * own kept), then what is PostgreSQL's own: two pools as two replicas, where it is, migrations, the URL.
 */
import { ConfigError, LedgerError, ValidationError } from '@polymodal/core';
import { describeJobLedgerContract, describeJobLedgerPaging } from '@polymodal/core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresJobLedger, type PostgresJobLedger } from '../src/index.js';
import { adminPool, startPostgres, type TestPostgres } from './support/start-postgres.js';

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

describeJobLedgerContract('PostgreSQL', () => open());
describeJobLedgerPaging('PostgreSQL', () => open(), {
  reopen: (ledger) => open((ledger as PostgresJobLedger).schema),
  // As an operator would: an UPDATE in psql, which leaves the revision as it was.
  async editByHand(ledger, entry, fields) {
    const admin = adminPool(server.url);
    try {
      await admin.query(
        `UPDATE "${(ledger as PostgresJobLedger).schema}".job_ledger SET last_status = $1, title = $2
          WHERE tenant = '' AND service = $3 AND fingerprint = $4`,
        [fields.lastStatus, fields.title, entry.service, entry.fingerprint],
      );
    } finally {
      await admin.end();
    }
  },
});

describe('createPostgresJobLedger', () => {
  it('commits a read reservation that need not be durable without waiting for the disk, and nothing else so', async () => {
    const schema = server.newSchema();
    const ledger = open(schema);
    await ledger.insert({ service: 'meeting', fingerprint: 'fp', id: 'j1', lastStatus: 'RUNNING' });
    // What each update's transaction commits with, seen from inside it by a trigger.
    const admin = adminPool(server.url);
    try {
      await admin.query(`
        CREATE TABLE "${schema}".commits (seq serial, setting text);
        CREATE FUNCTION "${schema}".note_commit() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN INSERT INTO "${schema}".commits (setting) VALUES (current_setting('synchronous_commit')); RETURN NEW; END $$;
        CREATE TRIGGER note_commit AFTER UPDATE ON "${schema}".job_ledger
          FOR EACH ROW EXECUTE FUNCTION "${schema}".note_commit();`);
      const entry = await ledger.findByFingerprint('meeting', 'fp');
      const taken = await ledger.compareAndSet(
        'meeting',
        'fp',
        entry?.revision ?? 0,
        { nextReadAt: '2030-01-01T00:00:05.000Z' },
        { durable: false },
      );
      await ledger.compareAndSet('meeting', 'fp', taken?.revision ?? 0, { lastStatus: 'COMPLETED' });
      await ledger.update('meeting', 'fp', { title: 'Weekly' });
      const { rows } = await admin.query(`SELECT setting FROM "${schema}".commits ORDER BY seq`);
      expect(rows.map((row) => row.setting)).toEqual(['off', 'on', 'on']);
      // The session's own setting is untouched: the next statement on that connection commits durably.
      expect((await ledger.findByFingerprint('meeting', 'fp'))?.title).toBe('Weekly');
    } finally {
      await admin.end();
    }
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

  it('lists every later write, by this replica or another, though it keeps what it parsed', async () => {
    const schema = server.newSchema();
    const [ledger, other] = [open(schema), open(schema)];
    await ledger.insert({ service: 'meeting', fingerprint: 'a', id: 'job-a', lastStatus: 'PENDING' });
    await ledger.insert({ service: 'speech', fingerprint: 'b', id: 'job-b', lastStatus: 'PENDING' });
    const statuses = async () => (await ledger.list()).map((entry) => `${entry.id} ${entry.lastStatus}`);
    expect(await statuses()).toEqual(['job-b PENDING', 'job-a PENDING']);
    await ledger.update('meeting', 'a', { lastStatus: 'RUNNING' });
    expect(await statuses()).toEqual(['job-b PENDING', 'job-a RUNNING']);
    await other.update('meeting', 'a', { lastStatus: 'SUCCESS', data: { credits: 3 } });
    await other.insert({ service: 'meeting', fingerprint: 'c', id: 'job-c', lastStatus: 'PENDING' });
    expect(await statuses()).toEqual(['job-c PENDING', 'job-b PENDING', 'job-a SUCCESS']);
    expect((await ledger.list({ service: 'meeting', limit: 1 })).map((entry) => entry.id)).toEqual(['job-c']);
    expect((await ledger.list({ service: 'meeting' }))[1]?.data).toEqual({ credits: 3 });
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

  it('refuses a bad service name as a ValidationError, before any query', async () => {
    await expect(open().findByFingerprint('../x', 'fp')).rejects.toSatisfy(ValidationError.isInstance);
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
