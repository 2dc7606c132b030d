/**
 * The ledger's reads at the cost of what they return, shown by PostgreSQL itself: on a tenant with 20,000
 * rows over a year (and another tenant beside it), the plans of the queries the ledger sends for a page, the
 * next page, a filtered page and the entries written since yesterday use the indexes and read no more rows
 * than they return (plus one, for "is there a next page"). The plans are printed for the README.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPostgresJobLedger } from '../src/index.js';
import { adminPool, startPostgres, type TestPostgres } from './support/start-postgres.js';

let server: TestPostgres;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.destroy();
});

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

it('pages and days read through the indexes, as many rows as they return', async () => {
  const schema = server.newSchema();
  const sent: { text: string; values: unknown[] }[] = [];
  const pool = new pg.Pool({ connectionString: server.url, max: 2 });
  const query = pool.query.bind(pool) as (text: string, values?: unknown[]) => Promise<pg.QueryResult>;
  (pool as unknown as { query: typeof query }).query = (text: string, values?: unknown[]) => {
    sent.push({ text, values: values ?? [] });
    return query(text, values);
  };
  const ledger = createPostgresJobLedger({ pool, schema, tenant: 'team-a' });
  const admin = adminPool(server.url);
  try {
    await ledger.ready();
    // A year of jobs for team-a and for team-b, written as the engine leaves them (a write 90 s after each).
    for (const tenant of ['team-a', 'team-b']) {
      await admin.query(
        `INSERT INTO "${schema}".job_ledger (tenant, service, fingerprint, id, last_status, created_at, updated_at)
         SELECT $1, CASE WHEN n % 4 = 0 THEN 'text-to-video' ELSE 'meeting' END, 'fp-' || n, 'job-' || n,
                CASE WHEN n % 50 = 0 THEN 'FAILED' ELSE 'COMPLETED' END,
                now() - (n * interval '26 minutes'), now() - (n * interval '26 minutes') + interval '90 seconds'
           FROM generate_series(1, 20000) AS n`,
        [tenant],
      );
    }
    await admin.query(`ANALYZE "${schema}".job_ledger`);

    const plans = new Map<string, PlanNode>();
    const explain = async (label: string, call: () => Promise<unknown>) => {
      sent.length = 0;
      await call();
      // The first query finds the rows; a second fetches the entries not parsed before, by seq.
      const found = sent[0];
      if (!found) throw new Error(`${label}: no query sent`);
      const { rows } = await admin.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${found.text}`, found.values);
      plans.set(label, rows[0]['QUERY PLAN'][0].Plan as PlanNode);
    };
    const first = await ledger.page({ limit: 20, services: ['meeting'] });
    await explain('page', () => ledger.page({ limit: 20, services: ['meeting'] }));
    await explain('next page', () =>
      ledger.page({ limit: 20, services: ['meeting'], cursor: first.nextCursor }),
    );
    await explain('all services', () => ledger.page({ limit: 20, services: ['meeting', 'text-to-video'] }));
    await explain('failed only', () => ledger.page({ limit: 20, statuses: ['FAILED'] }));
    const since = new Date(Date.now() - 24 * 60 * 60 * 1000).toISOString();
    await explain('since yesterday', () => ledger.list({ updatedSince: since }));

    for (const [label, plan] of plans) {
      const all = nodes(plan);
      process.stderr.write(
        `${label}: ${all.map((node) => `${node['Node Type']}${node['Index Name'] ? ` using ${node['Index Name']}` : ''} (${node['Actual Rows']} rows, ${node['Rows Removed by Filter'] ?? 0} filtered out)`).join(' → ')}\n`,
      );
      expect(all.some((node) => node['Node Type'] === 'Seq Scan')).toBe(false);
      const scans = all.filter((node) => /Index/.test(node['Node Type']));
      expect(scans.length).toBeGreaterThan(0);
      const rowsRead = scans.reduce(
        (sum, node) =>
          sum + (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops'],
        0,
      );
      // A page reads its 20 rows and one more, and those of other services it walks past (1 in 4 is a
      // video); the filtered page the rows it walks past (1 in 50 failed); a day the rows written since
      // yesterday's UTC day on (about 55 a day, at most two days: 111): never the 40,000 rows of both tenants.
      const bound =
        { page: 30, 'next page': 30, 'all services': 21, 'failed only': 1_100, 'since yesterday': 120 }[
          label
        ] ?? 0;
      expect(rowsRead, label).toBeLessThanOrEqual(bound);
    }
    // The newest-first indexes (by service, or the tenant's all), whichever the planner finds cheaper.
    for (const label of ['page', 'next page', 'all services', 'failed only']) {
      const names = nodes(plans.get(label) as PlanNode).map((node) => node['Index Name']);
      expect(names.some((name) => name === 'job_ledger_newest' || name === 'job_ledger_service_newest')).toBe(
        true,
      );
    }
    const sinceIndexes = nodes(plans.get('since yesterday') as PlanNode).map((node) => node['Index Name']);
    expect(sinceIndexes).toContain('job_ledger_updated_day');
  } finally {
    await ledger.close();
    await pool.end();
    await admin.end();
  }
}, 120_000);
