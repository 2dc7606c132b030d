/**
 * Two tenants on one database and one pool, as a server with a tenants file runs them: what a tenant
 * notices is that its list never shows another's jobs, another tenant's job id is "not found", and an
 * identical request from each tenant is each tenant's own paid job.
 */
import { createJobEngine } from '@polymodal/core/jobs';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresJobLedger, createPostgresPool, type PostgresJobLedger } from '../src/index.js';
import { startPostgres, type TestPostgres } from './support/start-postgres.js';

let server: TestPostgres;
const pools: pg.Pool[] = [];
const quiet = { warn: () => undefined };

beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.destroy();
});
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.end()));
});

/** One pool, one schema, a ledger per tenant on both. */
function tenants(...ids: string[]): PostgresJobLedger[] {
  const pool = createPostgresPool({ connectionString: server.url, poolSize: 4 });
  pools.push(pool);
  const schema = server.newSchema();
  return ids.map((tenant) => createPostgresJobLedger({ pool, schema, tenant }));
}

describe('tenants sharing one PostgreSQL pool', () => {
  it('keeps each tenant to its own entries: lists, ids, fingerprints and writes', async () => {
    const [acme, globex] = tenants('acme', 'globex');
    if (!acme || !globex) throw new Error('two ledgers expected');
    const same = { service: 'meeting', fingerprint: 'same-recording', lastStatus: 'PENDING' };
    expect((await acme.insert({ ...same, id: 'job-acme' })).inserted).toBe(true);
    // The same request from another tenant is that tenant's own, not a duplicate of acme's.
    expect((await globex.insert({ ...same, id: 'job-globex' })).inserted).toBe(true);

    expect((await acme.list()).map((entry) => entry.id)).toEqual(['job-acme']);
    expect((await globex.list({ service: 'meeting' })).map((entry) => entry.id)).toEqual(['job-globex']);
    expect(await acme.findById('meeting', 'job-globex')).toBeUndefined();
    expect((await acme.findByFingerprint('meeting', 'same-recording'))?.id).toBe('job-acme');

    // A write naming another tenant's job changes nothing.
    expect(await acme.updateById('meeting', 'job-globex', { lastStatus: 'CANCELLED' })).toBeUndefined();
    expect((await globex.findById('meeting', 'job-globex'))?.lastStatus).toBe('PENDING');
    // Both ledgers use the one pool: at most its 4 connections, whatever the number of tenants.
    expect(acme.location).toBe(globex.location);
    expect(acme.location).not.toContain(server.password);
  });

  it('the job engine pays once per tenant for one identical request, and each tenant sees only its job', async () => {
    const [acme, globex] = tenants('acme', 'globex');
    let paid = 0;
    const start = (ledger: PostgresJobLedger | undefined) =>
      createJobEngine({ ledger, log: quiet }).start({
        service: 'meeting',
        fingerprint: 'same-recording',
        resendable: true,
        submit: async () => {
          paid += 1;
          return { id: `job-${paid}`, status: 'PENDING' };
        },
      });
    const [first, again, other] = [await start(acme), await start(acme), await start(globex)];
    expect(again.id).toBe(first.id);
    expect(other.id).not.toBe(first.id);
    expect(paid).toBe(2);
    expect((await acme?.list())?.map((entry) => entry.id)).toEqual([first.id]);
    expect((await globex?.list())?.map((entry) => entry.id)).toEqual([other.id]);
    expect(await globex?.findById('meeting', first.id)).toBeUndefined();
  });

  it('refuses a tenant name that is not a plain id', () => {
    const pool = createPostgresPool({ connectionString: server.url });
    pools.push(pool);
    expect(() => createPostgresJobLedger({ pool, tenant: "x' OR '1'='1" })).toThrow(/tenant must be/);
  });
});
