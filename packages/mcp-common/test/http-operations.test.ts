/**
 * Operations of the HTTP service over real HTTP, with the real SDK client and the sandbox as the platform:
 * `GET /metrics` counts tool calls by tool and outcome and the platform's 429s, and shows no key, token or
 * tenant; who may read it on the metrics' own listener and on the MCP port (never freely there); request ids echoed in `X-Request-Id` and carried by the JSON log
 * lines; and a shutdown that makes a call waiting on a long job answer with its handle. The tool calls and
 * the drain are checked for clients of both protocol generations.
 */

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { type Sandbox, startSandbox } from '@polymodal/sandbox';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { respondWithJob } from '../src/jobs/respond-with-job.js';
import { createLogger } from '../src/logging/create-logger.js';
import { processMetrics } from '../src/metrics/create-metrics.js';
import { type HttpServerHandle, runHttpServer } from '../src/runners/run-http-server.js';
import type { ServerFactory } from '../src/runners/server-instance.js';
import { createPolymodalServer } from '../src/server/create-polymodal-server.js';
import { createTenantAccess, type TenantAccess } from '../src/tenants/create-tenant-access.js';
import { defineTool } from '../src/tools/define-tool.js';
import type { ToolDeps } from '../src/tools/tool-deps.js';
import { connectWithToken, INITIALIZE, JSON_HEADERS, rawRequest } from './support/raw-http.js';
import { tokenSha256 } from './support/serve-tenants.js';
import { GENERATIONS, type ProtocolGeneration } from './support/server-harness.js';
import { testTools } from './support/test-tools.js';

const TOKEN = 'ops-tenant-token-6b1d20f4';
const METRICS_TOKEN = 'scrape-token-91ac33e0';

/** Tools on the common factory: the platform's model list, and a wait on a job that never ends. */
const createOpsServer: ServerFactory = (request) =>
  createPolymodalServer({
    name: 'ops',
    title: 'Ops',
    version: '1.0.0',
    instructions: 'Operations test server.',
    deps: { platform: request?.platform },
    groups: [
      testTools(
        defineTool({
          name: 'list_models',
          title: 'List models',
          description: 'Lists the models.',
          inputSchema: {},
          annotations: {},
          handler: (tools: ToolDeps) => async () => {
            const models = await tools.platform.client.llm.models();
            return { content: [{ type: 'text', text: JSON.stringify(models).slice(0, 200) }] };
          },
        }),
        defineTool({
          name: 'wait_on_job',
          title: 'Wait on a job',
          description: 'Waits on a job that never ends.',
          inputSchema: { jobId: z.string() },
          annotations: {},
          handler:
            () =>
            async ({ jobId }, extra) =>
              respondWithJob<{ status: string; progress: number }>({
                extra,
                jobId,
                waitSeconds: 45,
                deadline: Date.now() + 50_000,
                // Like the engine: reports what it read, then waits until its deadline or an abort.
                poll: async (poll) => {
                  await poll.onProgress({ status: 'RUNNING', progress: 30 });
                  await new Promise((_resolve, reject) => {
                    const timer = setTimeout(_resolve, poll.deadline - Date.now());
                    poll.signal.addEventListener('abort', () => {
                      clearTimeout(timer);
                      reject(poll.signal.reason);
                    });
                  });
                  return { done: false, value: undefined, reads: 1, transientErrors: 0 };
                },
                view: (job) => ({ status: job.status, progress: job.progress }),
                waitTool: 'wait_on_job',
                present: (job) => ({ text: `Job ${jobId} is ${job.status}.` }),
              }),
        }),
      ),
    ],
  });

/** The value of one series in the exposition text (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const labelText = line.slice(name.length + 1, line.indexOf('}'));
    const have = labelText.split(',');
    if (wanted.every((pair) => have.includes(pair))) return Number(line.slice(line.indexOf('}') + 1));
  }
  return 0;
}

describe('the HTTP service: /metrics, request ids, JSON logs, drain', () => {
  let sandbox: Sandbox;
  let root: string;
  let access: TenantAccess | undefined;
  let handle: HttpServerHandle | undefined;
  const clients: Client[] = [];
  let lines: string[];

  beforeAll(async () => {
    sandbox = await startSandbox({ speed: 100 });
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'mcp-ops-'));
    await mkdir(path.join(root, 'media'), { recursive: true });
    const tenantsFile = path.join(root, 'tenants.json');
    await writeFile(
      tenantsFile,
      JSON.stringify({
        tenants: [{ id: 'team-ops', tokenSha256: tokenSha256(TOKEN), apiKey: sandbox.apiKey }],
      }),
    );
    const env = {
      POLYMODAL_BASE_URL: sandbox.url,
      POLYMODAL_TENANTS_FILE: tenantsFile,
      POLYMODAL_STATE_DIR: path.join(root, 'state'),
      POLYMODAL_ALLOWED_DIRS: path.join(root, 'media'),
      POLYMODAL_LOG_LEVEL: 'error',
    };
    lines = [];
    const log = createLogger({
      name: 'ops',
      level: 'debug',
      format: 'json',
      write: (line) => lines.push(line),
    });
    access = await createTenantAccess({ env, name: 'ops', log });
    handle = await runHttpServer(createOpsServer, {
      port: 0,
      access,
      log,
      metricsToken: METRICS_TOKEN,
      metricsListener: { port: 0 },
    });
  });
  afterEach(async () => {
    await Promise.allSettled(clients.splice(0).map((client) => client.close()));
    sandbox.control.clearFaults();
    await handle?.close();
    await access?.close();
    handle = undefined;
    await rm(root, { recursive: true, force: true });
  });

  /** `/metrics` on the MCP endpoint's port. */
  const metricsUrl = () => `http://127.0.0.1:${handle!.port}/metrics`;
  /** The metrics' own listener. */
  const ownMetricsUrl = () => handle!.metricsUrl as string;
  const ownMetricsHost = () => ({ host: new URL(ownMetricsUrl()).host });
  const readMetrics = async () => {
    const response = await rawRequest(ownMetricsUrl(), ownMetricsHost());
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return response.body;
  };
  const connect = async (generation: ProtocolGeneration) => {
    const client = await connectWithToken(handle!.url, TOKEN, 'ops-client', generation);
    clients.push(client);
    return client;
  };

  it.each(GENERATIONS)(
    'a %s client: counts a tool call by tool and outcome and a 429 of the platform, and shows no key, token or tenant',
    async (generation) => {
      const before = await readMetrics();
      const client = await connect(generation);
      // A 429 (with a short Retry-After), then a 503: the chokepoint waits both out and the third try answers.
      sandbox.control.setFaults([
        { match: { path: '/api/llm/v1/models$' }, kind: 'status', status: 429, retryAfter: '0', count: 1 },
        { match: { path: '/api/llm/v1/models$' }, kind: 'status', status: 503, retryAfter: '0', count: 1 },
      ]);
      const ok = await client.callTool({ name: 'list_models', arguments: {} });
      expect(ok.isError).toBeFalsy();
      // A 400 is not retried: the call fails.
      sandbox.control.setFaults([
        { match: { path: '/api/llm/v1/models$' }, kind: 'status', status: 400, count: 1 },
      ]);
      const failed = await client.callTool({ name: 'list_models', arguments: {} });
      expect(failed.isError).toBe(true);

      const after = await readMetrics();
      const delta = (name: string, labels: Record<string, string>) =>
        sample(after, name, labels) - sample(before, name, labels);
      expect(delta('polymodal_tool_calls_total', { tool: 'list_models', outcome: 'ok' })).toBe(1);
      expect(delta('polymodal_tool_calls_total', { tool: 'list_models', outcome: 'error' })).toBe(1);
      expect(delta('polymodal_tool_call_duration_seconds_count', { tool: 'list_models' })).toBe(2);
      expect(delta('polymodal_platform_responses_total', { service: 'llm', status_class: '429' })).toBe(1);
      expect(delta('polymodal_platform_responses_total', { service: 'llm', status_class: '5xx' })).toBe(1);
      expect(delta('polymodal_platform_responses_total', { service: 'llm', status_class: '4xx' })).toBe(1);
      expect(delta('polymodal_platform_responses_total', { service: 'llm', status_class: '2xx' })).toBe(1);
      // prom-client's process metrics are there too.
      expect(after).toMatch(/^process_cpu_user_seconds_total /m);
      for (const secret of [sandbox.apiKey, TOKEN, METRICS_TOKEN, 'team-ops']) {
        expect(after).not.toContain(secret);
      }
      for (const secret of [sandbox.apiKey, TOKEN, METRICS_TOKEN]) {
        expect(lines.join('\n')).not.toContain(secret);
      }
    },
  );

  it('on the MCP port, /metrics needs the metrics token even from loopback (a reverse proxy on this host)', async () => {
    const host = { host: `127.0.0.1:${handle!.port}` };
    const local = await rawRequest(metricsUrl(), host);
    expect(local.status).toBe(401);
    expect(local.body).not.toContain('polymodal_tool_calls_total');
    const right = await rawRequest(metricsUrl(), { ...host, authorization: `Bearer ${METRICS_TOKEN}` });
    expect(right.status).toBe(200);
    expect(right.body).toContain('polymodal_tool_calls_total');
    expect(right.body).not.toContain(METRICS_TOKEN);
  });

  it("on the metrics' own listener (loopback), a local scraper reads without a token; proxied, rebound or other paths get nothing", async () => {
    expect(new URL(ownMetricsUrl()).hostname).toBe('127.0.0.1');
    expect(new URL(ownMetricsUrl()).port).not.toBe(String(handle!.port));
    const body = await readMetrics();
    expect(body).toContain('polymodal_tool_calls_total');
    for (const secret of [sandbox.apiKey, TOKEN, METRICS_TOKEN, 'team-ops'])
      expect(body).not.toContain(secret);
    const proxied = await rawRequest(ownMetricsUrl(), {
      ...ownMetricsHost(),
      'x-forwarded-for': '203.0.113.9',
    });
    expect(proxied.status).toBe(401);
    const withToken = await rawRequest(ownMetricsUrl(), {
      ...ownMetricsHost(),
      'x-forwarded-for': '203.0.113.9',
      authorization: `Bearer ${METRICS_TOKEN}`,
    });
    expect(withToken.status).toBe(200);
    const rebound = await rawRequest(ownMetricsUrl(), {
      host: `evil.example:${new URL(ownMetricsUrl()).port}`,
    });
    expect(rebound.status).toBe(401);
    // Nothing but /metrics: the MCP endpoint, the probes and the rest are not served on this port.
    for (const other of ['/mcp', '/healthz', '/']) {
      const response = await rawRequest(new URL(other, ownMetricsUrl()).href, ownMetricsHost());
      expect(response.status).toBe(404);
    }
  });

  it('without a metrics token, /metrics on the MCP port is refused to every peer, and metrics will not listen off loopback', async () => {
    const open = await runHttpServer(createOpsServer, { port: 0, probe: false });
    try {
      const local = await rawRequest(`http://127.0.0.1:${open.port}/metrics`, {
        host: `127.0.0.1:${open.port}`,
      });
      expect(local.status).toBe(403);
      expect(JSON.parse(local.body).error).toMatch(/POLYMODAL_METRICS_TOKEN.*--metrics-port/);
      expect(open.metricsUrl).toBeUndefined();
    } finally {
      await open.close();
    }
    await expect(
      runHttpServer(createOpsServer, {
        port: 0,
        probe: false,
        metricsListener: { port: 0, host: '0.0.0.0' },
      }),
    ).rejects.toThrow(/refusing to serve metrics on 0\.0\.0\.0 without POLYMODAL_METRICS_TOKEN/);
  });

  it('off loopback (a proxied request), /metrics on the MCP port needs the metrics token: 401 without or with a wrong one, 200 with it', async () => {
    const host = { host: `127.0.0.1:${handle!.port}`, 'x-forwarded-for': '203.0.113.9' };
    expect((await rawRequest(metricsUrl(), host)).status).toBe(401);
    const wrong = await rawRequest(metricsUrl(), { ...host, authorization: 'Bearer not-the-token' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).not.toContain(METRICS_TOKEN);
    // The MCP tenant's token is not a scraper's.
    expect((await rawRequest(metricsUrl(), { ...host, authorization: `Bearer ${TOKEN}` })).status).toBe(401);
    const right = await rawRequest(metricsUrl(), { ...host, authorization: `Bearer ${METRICS_TOKEN}` });
    expect(right.status).toBe(200);
    expect(right.body).toContain('polymodal_tool_calls_total');
    // A name rebound to loopback (a web page in a local browser) gets nothing without the token either.
    const rebound = await rawRequest(metricsUrl(), { host: `evil.example:${handle!.port}` });
    expect(rebound.status).toBe(401);
  });

  it('echoes a well-formed X-Request-Id (else a new UUID), and every JSON log line of the request carries it', async () => {
    const headers = { ...JSON_HEADERS, host: `127.0.0.1:${handle!.port}`, authorization: `Bearer ${TOKEN}` };
    const given = await rawRequest(
      handle!.url,
      { ...headers, 'x-request-id': 'trace.2026-11-23_ab' },
      INITIALIZE,
    );
    expect(given.status).toBe(200);
    expect(given.headers['x-request-id']).toBe('trace.2026-11-23_ab');
    const refused = await rawRequest(handle!.url, { ...headers, 'x-request-id': 'bad id\u00e9' }, INITIALIZE);
    expect(refused.headers['x-request-id']).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
    const unauthenticated = await rawRequest(
      handle!.url,
      { ...JSON_HEADERS, host: `127.0.0.1:${handle!.port}`, 'x-request-id': 'no-token-1' },
      INITIALIZE,
    );
    expect(unauthenticated.status).toBe(401);

    await vi.waitFor(() => expect(lines.length).toBeGreaterThanOrEqual(4));
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const record of records) {
      expect(record).toEqual(
        expect.objectContaining({ time: expect.any(String), level: expect.any(String), name: 'ops' }),
      );
    }
    const served = records.filter((record) => record.msg === 'HTTP request served');
    expect(served).toContainEqual(
      expect.objectContaining({
        requestId: 'trace.2026-11-23_ab',
        status: 200,
        method: 'POST',
        path: '/mcp',
      }),
    );
    expect(served).toContainEqual(expect.objectContaining({ requestId: refused.headers['x-request-id'] }));
    // The refusal is logged inside the request too, with its id and without the (absent) token.
    const ofRefused = records.filter((record) => record.requestId === 'no-token-1');
    expect(ofRefused.map((record) => record.msg)).toEqual(
      expect.arrayContaining(['refused an unauthenticated request', 'HTTP request served']),
    );
  });

  it.each(GENERATIONS)(
    'a %s client: on close(), a call waiting on a long job answers at once with its handle, counted as pending; new requests are refused',
    async (generation) => {
      const before = await readMetrics();
      const client = await connect(generation);
      let reported: () => void = () => undefined;
      const waiting = new Promise<void>((resolve) => {
        reported = resolve;
      });
      // Its progress notification says the call has read the job and is waiting on it.
      const call = client.callTool(
        { name: 'wait_on_job', arguments: { jobId: 'job_drain_1' } },
        {
          onprogress: () => reported(),
        },
      );
      await waiting;
      const startedAt = Date.now();
      const closing = handle!.close();
      const result = await call;
      expect(Date.now() - startedAt).toBeLessThan(10_000);
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        jobId: 'job_drain_1',
        done: false,
        status: 'RUNNING',
        progress: 30,
        next: expect.stringContaining('wait_on_job with jobId=job_drain_1'),
      });
      await closing;
      const after = processMetrics();
      const text = (await after.render()).body;
      expect(
        sample(text, 'polymodal_tool_calls_total', { tool: 'wait_on_job', outcome: 'pending' }) -
          sample(before, 'polymodal_tool_calls_total', { tool: 'wait_on_job', outcome: 'pending' }),
      ).toBe(1);
      await expect(rawRequest(handle!.url, JSON_HEADERS, INITIALIZE)).rejects.toThrow();
      handle = undefined;
    },
  );
});
