/**
 * Authentication and tenants over real HTTP, with the real SDK client and the sandbox as the platform:
 * 401 without or with a wrong token (for the first request of either protocol generation), 403 for a wrong
 * Host even with a good token, one shared context per tenant (its own directories), reloads of the tenants
 * file, sessions beside per-request 2026-07-28 clients, readiness. What a client experiences is checked for
 * both protocol generations.
 */

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { MEETING_SERVICE } from '@polymodal/core/constants';
import { type Sandbox, startSandbox } from '@polymodal/sandbox';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPlatformContext, type PlatformContext } from '../src/context/create-platform-context.js';
import { listJobsTool } from '../src/jobs/list-jobs-tool.js';
import {
  type HttpServerHandle,
  type HttpSessionOptions,
  runHttpServer,
} from '../src/runners/run-http-server.js';
import type { ServerFactory } from '../src/runners/server-instance.js';
import { createPolymodalServer } from '../src/server/create-polymodal-server.js';
import { createTenantAccess, type TenantAccess } from '../src/tenants/create-tenant-access.js';
import { connectWithToken, INITIALIZE, JSON_HEADERS, modernRequest, rawRequest } from './support/raw-http.js';
import { tokenSha256 } from './support/serve-tenants.js';
import { GENERATIONS } from './support/server-harness.js';
import { testTools } from './support/test-tools.js';

const TOKEN_A = 'token-of-team-a-4f1c9a';
const TOKEN_B = 'token-of-team-b-77d02e';
const TOKEN_C = 'token-of-team-c-0b9e13';

/** A small server on the common factory: list_jobs over the tenant's ledger. */
const createJobsServer: ServerFactory = (request) =>
  createPolymodalServer({
    name: 'jobs',
    title: 'Jobs',
    version: '1.0.0',
    instructions: 'Lists jobs.',
    deps: { platform: request?.platform },
    groups: [testTools(listJobsTool({ services: [MEETING_SERVICE] }))],
  });

describe('HTTP with a tenants file', () => {
  let sandbox: Sandbox;
  let root: string;
  let tenantsFile: string;
  let env: NodeJS.ProcessEnv;
  let access: TenantAccess | undefined;
  let handle: HttpServerHandle | undefined;
  /** Every context the access built, and whether it was closed. */
  let built: { env: NodeJS.ProcessEnv; context: PlatformContext; closed: boolean }[];

  const writeTenants = (tenants: unknown) => writeFile(tenantsFile, JSON.stringify({ tenants }));

  const start = async (options: { sessions?: boolean | HttpSessionOptions } = {}) => {
    access = await createTenantAccess({
      env,
      name: 'jobs',
      createContext(contextOptions) {
        const context = createPlatformContext(contextOptions);
        const entry = { env: contextOptions.env ?? {}, context, closed: false };
        built.push(entry);
        const close = context.close.bind(context);
        context.close = () => {
          entry.closed = true;
          return close();
        };
        return context;
      },
    });
    handle = await runHttpServer(createJobsServer, {
      port: 0,
      access,
      ...(options.sessions ? { sessions: options.sessions } : {}),
    });
    return handle;
  };

  beforeAll(async () => {
    sandbox = await startSandbox({ speed: 100 });
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  beforeEach(async () => {
    built = [];
    root = await mkdtemp(path.join(os.tmpdir(), 'mcp-tenants-'));
    tenantsFile = path.join(root, 'tenants.json');
    await writeTenants([
      { id: 'team-a', tokenSha256: tokenSha256(TOKEN_A), apiKey: sandbox.apiKey },
      { id: 'team-b', tokenSha256: tokenSha256(TOKEN_B), apiKey: sandbox.apiKey2 },
    ]);
    env = {
      POLYMODAL_BASE_URL: sandbox.url,
      POLYMODAL_TENANTS_FILE: tenantsFile,
      POLYMODAL_STATE_DIR: path.join(root, 'state'),
      POLYMODAL_OUTPUT_DIR: path.join(root, 'out'),
      POLYMODAL_LOG_LEVEL: 'error',
    };
  });
  afterEach(async () => {
    await handle?.close();
    await access?.close();
    handle = undefined;
    access = undefined;
    await rm(root, { recursive: true, force: true });
  });

  it('answers 401 with a Bearer challenge and a JSON-RPC error without a token or with a wrong one', async () => {
    const { url, port } = await start();
    const host = { host: `127.0.0.1:${port}` };
    const missing = await rawRequest(url, { ...JSON_HEADERS, ...host }, INITIALIZE);
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="polymodal"');
    expect(JSON.parse(missing.body)).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { message: expect.stringMatching(/^unauthorized: send "Authorization: Bearer <token>"/) },
    });

    const wrong = await rawRequest(
      url,
      { ...JSON_HEADERS, ...host, authorization: 'Bearer not-a-known-token' },
      INITIALIZE,
    );
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toMatch(/^Bearer realm="polymodal", error="invalid_token"/);
    expect(wrong.body).not.toContain('not-a-known-token');

    // Another scheme is not a bearer token, even with a valid token in it.
    const basic = await rawRequest(
      url,
      { ...JSON_HEADERS, ...host, authorization: `Basic ${TOKEN_A}` },
      INITIALIZE,
    );
    expect(basic.status).toBe(401);

    await expect(connectWithToken(url, 'not-a-known-token')).rejects.toThrow(/401|unauthorized/i);
    // Nobody got in, so no tenant context was built beyond the startup probe's.
    expect(built.map((entry) => entry.env.POLYMODAL_STATE_DIR)).toEqual([
      path.join(root, 'state', 'tenants', 'team-a'),
    ]);
  });

  it('answers an unauthenticated 2026-07-28 server/discover exactly as an unauthenticated initialize: 401, same challenge and body', async () => {
    const { url, port } = await start();
    const host = { host: `127.0.0.1:${port}` };
    const discover = modernRequest('server/discover');
    // The request is one the server serves: with a token it is answered.
    const served = await rawRequest(
      url,
      { ...discover.headers, ...host, authorization: `Bearer ${TOKEN_A}` },
      discover.body,
    );
    expect(served.status).toBe(200);
    expect(served.body).toContain('"supportedVersions":["2026-07-28"]');

    for (const authorization of [undefined, 'Bearer not-a-known-token', `Basic ${TOKEN_A}`]) {
      const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
      const legacy = await rawRequest(url, { ...JSON_HEADERS, ...host, ...headers }, INITIALIZE);
      const modern = await rawRequest(url, { ...discover.headers, ...host, ...headers }, discover.body);
      expect(modern.status, authorization).toBe(401);
      expect(modern.headers['www-authenticate'], authorization).toBe(legacy.headers['www-authenticate']);
      expect(modern.headers['content-type'], authorization).toBe(legacy.headers['content-type']);
      expect(JSON.parse(modern.body), authorization).toEqual(JSON.parse(legacy.body));
    }
    const missing = await rawRequest(url, { ...discover.headers, ...host }, discover.body);
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="polymodal"');
    expect(JSON.parse(missing.body)).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { message: expect.stringMatching(/^unauthorized: send "Authorization: Bearer <token>"/) },
    });

    await expect(connectWithToken(url, 'not-a-known-token', 'modern', '2026-07-28')).rejects.toThrow(
      /401|unauthorized/i,
    );
    // Only the served discover reached a tenant: team-a's, built by the startup probe already.
    expect(built.map((entry) => path.basename(entry.env.POLYMODAL_STATE_DIR ?? ''))).toEqual(['team-a']);
  });

  it('answers 403 for a Host that is not allowed, even with a valid token (checked with node:http)', async () => {
    const { url, port } = await start();
    const authorization = `Bearer ${TOKEN_A}`;
    const rebound = await rawRequest(
      url,
      { ...JSON_HEADERS, host: `attacker.example:${port}`, authorization },
      INITIALIZE,
    );
    expect(rebound.status).toBe(403);
    const allowed = await rawRequest(
      url,
      { ...JSON_HEADERS, host: `localhost:${port}`, authorization },
      INITIALIZE,
    );
    expect(allowed.status).toBe(200);
  });

  describe.each(GENERATIONS)('a %s client', (generation) => {
    it('serves tools/list and tools/call with a token, every request of a tenant on its one shared context', async () => {
      const { url } = await start();
      const seen = new Set<PlatformContext>();
      for (let index = 0; index < 20; index += 1) {
        for (const token of [TOKEN_A, TOKEN_B]) {
          const client = await connectWithToken(url, token, 'tenant', generation);
          const tools = await client.listTools();
          expect(tools.tools.map((tool) => tool.name)).toEqual(['list_jobs']);
          const listed = await client.callTool({ name: 'list_jobs', arguments: {} });
          expect(listed.isError).toBeFalsy();
          expect(listed.structuredContent).toMatchObject({ count: 0, jobs: [] });
          await client.close();
        }
      }
      for (const entry of built) seen.add(entry.context);
      // One context per tenant for 40 clients (and the stateless runner keeps no session).
      expect(built.map((entry) => path.basename(entry.env.POLYMODAL_STATE_DIR ?? ''))).toEqual([
        'team-a',
        'team-b',
      ]);
      expect(seen.size).toBe(2);
      expect(handle?.sessions()).toBe(0);
      // Each tenant has its own platform key, state directory and output directory.
      const [teamA, teamB] = built as [(typeof built)[number], (typeof built)[number]];
      expect(teamA.env.POLYMODAL_API_KEY).toBe(sandbox.apiKey);
      expect(teamB.env.POLYMODAL_API_KEY).toBe(sandbox.apiKey2);
      expect(teamA.context.files.outputDir).toBe(path.join(root, 'out', 'team-a'));
      expect(teamB.context.files.outputDir).toBe(path.join(root, 'out', 'team-b'));
      expect(teamB.env.POLYMODAL_STATE_DIR).toBe(path.join(root, 'state', 'tenants', 'team-b'));

      // A job of team-a is listed for team-a only.
      await teamA.context.ledger.insert({
        service: MEETING_SERVICE,
        fingerprint: 'recording-of-team-a',
        id: 'job-of-team-a',
        lastStatus: 'PENDING',
      });
      const listJobs = async (token: string) => {
        const client = await connectWithToken(url, token, 'tenant', generation);
        const listed = await client.callTool({ name: 'list_jobs', arguments: {} });
        await client.close();
        return listed.structuredContent;
      };
      expect(await listJobs(TOKEN_A)).toMatchObject({ count: 1, jobs: [{ jobId: 'job-of-team-a' }] });
      expect(await listJobs(TOKEN_B)).toMatchObject({ count: 0, jobs: [] });
    });

    it('reloads the tenants file: new tokens work, removed ones get 401 and their context is closed; a bad file keeps the tenants', async () => {
      const { url } = await start();
      await (await connectWithToken(url, TOKEN_B, 'team-b', generation)).close();
      expect(built.map((entry) => path.basename(entry.env.POLYMODAL_STATE_DIR ?? ''))).toEqual([
        'team-a',
        'team-b',
      ]);

      await writeTenants([
        { id: 'team-a', tokenSha256: tokenSha256(TOKEN_A), apiKey: sandbox.apiKey },
        { id: 'team-c', tokenSha256: tokenSha256(TOKEN_C), apiKey: sandbox.apiKey2 },
      ]);
      expect(await access?.reload()).toEqual({
        ok: true,
        tenants: 2,
        added: ['team-c'],
        removed: ['team-b'],
        changed: [],
      });
      expect(built[1]?.closed).toBe(true);
      expect(built[0]?.closed).toBe(false);
      await expect(connectWithToken(url, TOKEN_B, 'team-b', generation)).rejects.toThrow(/401|unauthorized/i);
      const teamC = await connectWithToken(url, TOKEN_C, 'team-c', generation);
      expect((await teamC.listTools()).tools).toHaveLength(1);
      await teamC.close();

      await writeFile(tenantsFile, `{"tenants": [{"id": "team-a", "tokenSha256": "${sandbox.apiKey}"`);
      const failed = await access?.reload();
      expect(failed).toMatchObject({
        ok: false,
        tenants: 2,
        reason: expect.stringContaining('not valid JSON'),
      });
      expect(JSON.stringify(failed)).not.toContain(sandbox.apiKey);
      const teamA = await connectWithToken(url, TOKEN_A, 'team-a', generation);
      expect((await teamA.listTools()).tools).toHaveLength(1);
      await teamA.close();
    });
  });

  it("with --sessions, a session answers only its own tenant, and a removed tenant's sessions are closed", async () => {
    const { url, port } = await start({ sessions: true });
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN_A}` } },
    });
    const client = new Client({ name: 'session-a', version: '1' });
    await client.connect(transport);
    expect(handle?.sessions()).toBe(1);
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const asTeamB = await rawRequest(
      url,
      {
        ...JSON_HEADERS,
        host: `127.0.0.1:${port}`,
        authorization: `Bearer ${TOKEN_B}`,
        'mcp-session-id': transport.sessionId ?? '',
        'mcp-protocol-version': '2025-06-18',
      },
      list,
    );
    expect(asTeamB.status).toBe(404);

    await writeTenants([{ id: 'team-b', tokenSha256: tokenSha256(TOKEN_B), apiKey: sandbox.apiKey2 }]);
    expect(await access?.reload()).toMatchObject({ ok: true, removed: ['team-a'] });
    expect(handle?.sessions()).toBe(0);
    await expect(client.listTools()).rejects.toThrow(/401|unauthorized/i);
    await client.close();
  });

  it("with --sessions, a tenant opening many sessions closes its own, never another tenant's", async () => {
    const { url } = await start({ sessions: { maxSessions: 5, maxSessionsPerTenant: 3 } });
    const open = async (token: string, name: string) => {
      const client = new Client({ name, version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      return client;
    };
    const works = (client: Client) =>
      client.listTools().then(
        () => true,
        () => false,
      );
    const teamB = await open(TOKEN_B, 'b-0');
    // Far more than the global cap, one after another: each new one finds the others idle.
    const teamA: Client[] = [];
    for (let index = 0; index < 12; index += 1) teamA.push(await open(TOKEN_A, `a-${index}`));
    expect(handle?.sessions()).toBe(4);
    expect(await works(teamB)).toBe(true);
    // team-a kept its 3 most recent sessions; its older ones were the ones closed.
    const alive = [];
    for (const client of teamA) alive.push(await works(client));
    expect(alive).toEqual([...Array(9).fill(false), true, true, true]);

    // At the global cap, a tenant holding fewer sessions closes one of the tenant holding the most.
    const secondB = await open(TOKEN_B, 'b-1');
    const thirdB = await open(TOKEN_B, 'b-2');
    expect(handle?.sessions()).toBe(5);
    expect([await works(teamB), await works(secondB), await works(thirdB)]).toEqual([true, true, true]);
    const stillA = [];
    for (const client of teamA.slice(9)) stillA.push(await works(client));
    expect(stillA.filter(Boolean)).toHaveLength(2);
    await Promise.allSettled([teamB, secondB, thirdB, ...teamA].map((client) => client.close()));
  });

  it('with --sessions, a 2026-07-28 client is served per request beside them: it holds no session, closes none, sees only its tenant, and is refused once its tenant is removed', async () => {
    const { url, port } = await start({ sessions: { maxSessions: 2, maxSessionsPerTenant: 1 } });
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN_A}` } },
    });
    const session = new Client({ name: 'session-a', version: '1' });
    await session.connect(transport);
    expect(handle?.sessions()).toBe(1);
    const teamA = built.find((entry) => entry.env.POLYMODAL_STATE_DIR?.endsWith(`${path.sep}team-a`));
    await teamA?.context.ledger.insert({
      service: MEETING_SERVICE,
      fingerprint: 'recording-of-team-a',
      id: 'job-of-team-a',
      lastStatus: 'PENDING',
    });

    // More 2026-07-28 clients of team-a than its session cap: each is served, and the session stays open.
    const modernA: Client[] = [];
    for (let index = 0; index < 4; index += 1) {
      const client = await connectWithToken(url, TOKEN_A, `modern-a-${index}`, '2026-07-28');
      modernA.push(client);
      const listed = await client.callTool({ name: 'list_jobs', arguments: {} });
      expect(listed.structuredContent).toMatchObject({ count: 1, jobs: [{ jobId: 'job-of-team-a' }] });
    }
    const modernB = await connectWithToken(url, TOKEN_B, 'modern-b', '2026-07-28');
    expect((await modernB.callTool({ name: 'list_jobs', arguments: {} })).structuredContent).toMatchObject({
      count: 0,
      jobs: [],
    });
    expect(handle?.sessions()).toBe(1);
    expect((await session.listTools()).tools).toHaveLength(1);

    // team-b presenting team-a's session id on a 2026-07-28 request does not reach team-a's session.
    const call = modernRequest('tools/call', { name: 'list_jobs', arguments: {} });
    const asTeamB = await rawRequest(
      url,
      {
        ...call.headers,
        host: `127.0.0.1:${port}`,
        authorization: `Bearer ${TOKEN_B}`,
        'mcp-session-id': transport.sessionId ?? '',
        'mcp-name': 'list_jobs',
      },
      call.body,
    );
    // Served per request on team-b's own context (the header names no session of the 2026-07-28 protocol).
    expect(asTeamB.status).toBe(200);
    expect(JSON.parse(asTeamB.body)).toMatchObject({ result: { structuredContent: { count: 0, jobs: [] } } });
    expect(asTeamB.body).not.toContain('job-of-team-a');

    await writeTenants([{ id: 'team-b', tokenSha256: tokenSha256(TOKEN_B), apiKey: sandbox.apiKey2 }]);
    expect(await access?.reload()).toMatchObject({ ok: true, removed: ['team-a'] });
    expect(handle?.sessions()).toBe(0);
    await expect(modernA[0]!.callTool({ name: 'list_jobs', arguments: {} })).rejects.toThrow(
      /401|unauthorized/i,
    );
    expect((await modernB.callTool({ name: 'list_jobs', arguments: {} })).isError).toBeFalsy();
    await Promise.allSettled([session, modernB, ...modernA].map((client) => client.close()));
  });

  it('is ready when the tenants file is loaded and the state directory is writable, and says why not otherwise', async () => {
    const { url, port } = await start();
    const base = url.replace(/\/mcp$/, '');
    const ready = await rawRequest(`${base}/readyz`, { host: `127.0.0.1:${port}` }, '', 'GET');
    expect(ready).toMatchObject({ status: 200, body: JSON.stringify({ ok: true }) });
    await handle?.close();
    await access?.close();

    // A state directory under a regular file cannot be created, even by root.
    await mkdir(path.join(root, 'blocked'), { recursive: true });
    await writeFile(path.join(root, 'blocked', 'file'), '');
    env.POLYMODAL_STATE_DIR = path.join(root, 'blocked', 'file', 'state');
    const { url: blockedUrl, port: blockedPort } = await start();
    const notReady = await rawRequest(
      `${blockedUrl.replace(/\/mcp$/, '')}/readyz`,
      { host: `127.0.0.1:${blockedPort}` },
      '',
      'GET',
    );
    expect(notReady.status).toBe(503);
    expect(JSON.parse(notReady.body)).toEqual({
      ok: false,
      reason: expect.stringMatching(/^the state directory is not writable/),
    });
    expect(notReady.body).not.toContain(root);
    const health = await rawRequest(`${blockedUrl.replace(/\/mcp$/, '')}/healthz`, {}, '', 'GET');
    expect(health.status).toBe(200);
  });
});
