import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type Sandbox, startSandbox } from '../src/index.js';
import { createClient } from './support/sandbox-client.js';

let sandbox: Sandbox;
let client: ReturnType<typeof createClient>;

beforeAll(async () => {
  sandbox = await startSandbox({ speed: 1 });
  client = createClient(sandbox);
});
beforeEach(() => sandbox.control.reset());
afterAll(() => sandbox.close());

const JOBS = { method: 'POST', path: '/jobs$' };

const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** Polls until the condition holds, for at most `milliseconds` of real time. */
async function waitUntil(condition: () => boolean, milliseconds = 15_000): Promise<void> {
  const deadline = Date.now() + milliseconds;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await pause(20);
  }
}

async function fetchError(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return `${(error as Error).message} ${cause?.code ?? ''} ${cause?.message ?? ''}`;
  }
  throw new Error('expected the request to fail');
}

describe('faults', () => {
  it('status: answers the given status with Retry-After, without running the handler, for count hits', async () => {
    const receipt = await client.upload();
    sandbox.control.setFaults([{ match: JOBS, kind: 'status', status: 503, retryAfter: '2', count: 2 }]);
    for (let attempt = 0; attempt < 2; attempt++) {
      const result = await client.createJob(receipt);
      expect(result.status).toBe(503);
      expect(result.headers.get('retry-after')).toBe('2');
      expect(typeof result.body.error).toBe('string');
    }
    expect(sandbox.control.counters().jobsCreated).toEqual({});
    expect((await client.createJob(receipt)).status).toBe(201);
    expect(sandbox.control.faults()).toEqual([]);
    expect(sandbox.control.counters().faults).toEqual({ status: 2 });
  });

  it('status 429 on one route leaves the others alone', async () => {
    sandbox.control.setFaults([
      { match: { path: '/uploads$' }, kind: 'status', status: 429, retryAfter: '1' },
    ]);
    expect((await client.uploadBytes(Buffer.alloc(100))).status).toBe(429);
    expect((await client.call('GET', '/jobs')).status).toBe(200);
  });

  it('reset-before: the connection drops and nothing happens', async () => {
    const receipt = await client.upload();
    sandbox.control.setFaults([{ match: JOBS, kind: 'reset-before', count: 1 }]);
    const message = await fetchError(() => client.createJob(receipt));
    expect(message).toMatch(/fetch failed|ECONNRESET|socket|other side closed/i);
    expect(sandbox.control.counters().jobsCreated).toEqual({});
    expect((await client.createJob(receipt)).status).toBe(201);
  });

  it('reset-after: the job IS created though the client sees a dropped connection; resubmitting returns it', async () => {
    const receipt = await client.upload();
    sandbox.control.setFaults([{ match: JOBS, kind: 'reset-after', count: 1 }]);
    await fetchError(() => client.createJob(receipt));
    expect(sandbox.control.counters().jobsCreated).toEqual({ user_1: 1 });
    const again = await client.createJob(receipt);
    expect(again.status).toBe(200);
    expect(sandbox.control.counters().jobsCreated).toEqual({ user_1: 1 });
    expect(sandbox.control.counters().requests['POST /api/conference-summary/v1/jobs']).toBe(2);
  });

  it('truncate: full Content-Length, half the body, then the connection drops', async () => {
    const id = await client.submit();
    sandbox.control.setFaults([{ match: { method: 'GET', path: '/jobs/' }, kind: 'truncate', count: 1 }]);
    const response = await fetch(`${client.base}/jobs/${id}`, { headers: { 'x-api-key': sandbox.apiKey } });
    expect(response.status).toBe(200);
    expect(Number(response.headers.get('content-length'))).toBeGreaterThan(0);
    await expect(response.text()).rejects.toThrow();
    expect((await client.job(id)).id).toBe(id);
  });

  it('latency: delays the answer by latencyMs', async () => {
    // A delay long enough that the undelayed second answer cannot reach it however busy the machine is (a
    // 300 ms delay left a 250 ms window for the second answer, which a loaded machine can exceed alone).
    const latencyMs = 2_000;
    sandbox.control.setFaults([{ match: { method: 'GET' }, kind: 'latency', latencyMs, count: 1 }]);
    const started = Date.now();
    expect((await client.call('GET', '/jobs')).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(latencyMs - 20);
    // The rule was used up by the first request, so the second is answered without it.
    expect(sandbox.control.faults()).toEqual([]);
    const second = Date.now();
    await client.call('GET', '/jobs');
    expect(Date.now() - second).toBeLessThan(latencyMs);
  });

  it('hang: the request is never answered and the handler never runs, until the client gives up', async () => {
    const receipt = await client.upload();
    sandbox.control.setFaults([{ match: JOBS, kind: 'hang', count: 1 }]);
    const abort = new AbortController();
    const outcome = fetch(`${client.base}/jobs`, {
      method: 'POST',
      headers: { 'x-api-key': sandbox.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ uploadReceipt: receipt, sourceLanguage: 'en', targetLanguage: 'th' }),
      signal: abort.signal,
    }).then(
      (response) => `answered ${response.status}`,
      (error: Error) => `failed: ${error.name}`,
    );
    // Arrived first (a busy machine can take long to deliver it), then left unanswered for a while.
    await waitUntil(() => sandbox.control.requests({ method: 'POST', path: '/jobs$' }).length === 1);
    expect(await Promise.race([outcome, pause(1500).then(() => 'still waiting')])).toBe('still waiting');
    expect(sandbox.control.requests({ method: 'POST', path: '/jobs$' })).toMatchObject([
      { status: undefined },
    ]);
    abort.abort();
    expect(await outcome).toBe('failed: AbortError');
    expect(sandbox.control.counters().jobsCreated).toEqual({});
    expect(sandbox.control.counters().faults).toEqual({ hang: 1 });
    expect((await client.createJob(receipt)).status).toBe(201);
  });

  it('hang: close() ends hung requests and hung upgrades instead of waiting for them', async () => {
    const own = await startSandbox({ config: { faults: [{ kind: 'hang' }] } });
    const request = fetch(`${own.url}/api/conference-summary/v1/jobs`, {
      headers: { 'x-api-key': own.apiKey },
    }).then(
      () => 'answered',
      () => 'dropped',
    );
    const socket = new WebSocket(`${own.url.replace('http', 'ws')}/api/thai-asr/stream?session_id=x`);
    const upgrade = new Promise<string>((resolve) => {
      socket.once('open', () => resolve('open'));
      socket.once('unexpected-response', () => resolve('answered'));
      socket.once('error', () => resolve('dropped'));
    });
    await waitUntil(() => own.control.requests().length === 2);
    expect(own.control.counters().faults).toEqual({ hang: 2 });
    const closed = await Promise.race([own.close().then(() => 'closed'), pause(10_000).then(() => 'stuck')]);
    expect(closed).toBe('closed');
    expect(await request).toBe('dropped');
    expect(await upgrade).toBe('dropped');
  });

  it('WebSocket kinds never touch plain HTTP requests', async () => {
    sandbox.control.setFaults([
      { kind: 'ws-stall', count: 1 },
      { kind: 'ws-malformed', count: 1 },
    ]);
    expect((await client.call('GET', '/jobs')).status).toBe(200);
    expect(sandbox.control.counters().faults).toEqual({});
    expect(sandbox.control.faults().map((entry) => entry.remaining)).toEqual([1, 1]);
  });

  it('rate: draws from the seeded generator, so the same seed fails the same requests', async () => {
    const pattern = async () => {
      await sandbox.control.reset();
      sandbox.control.setFaults([{ match: { path: '/jobs$' }, kind: 'status', status: 500, rate: 0.5 }]);
      const statuses: number[] = [];
      for (let index = 0; index < 16; index++) statuses.push((await client.call('GET', '/jobs')).status);
      return statuses;
    };
    const first = await pattern();
    expect(first).toContain(500);
    expect(first).toContain(200);
    expect(await pattern()).toEqual(first);
  });

  it('refuses invalid rules with a clear message', () => {
    expect(() => sandbox.control.setFaults([{ kind: 'status' } as never])).toThrow(/needs a status/);
    expect(() =>
      sandbox.control.setFaults([{ kind: 'latency', latencyMs: 5, match: { path: '(' } }]),
    ).toThrow(/regular expression/);
    expect(() => sandbox.control.setFaults([{ kind: 'explode' } as never])).toThrow(/kind/);
    expect(() => sandbox.control.setFaults([{ kind: 'status', status: 500, afterEvents: 2 }])).toThrow(
      /afterEvents only applies to the WebSocket kinds/,
    );
    expect(() => sandbox.control.setFaults([{ kind: 'ws-stall', frame: 'x' }])).toThrow(
      /frame only applies to a "ws-malformed" fault/,
    );
    expect(() => sandbox.control.setFaults([{ kind: 'ws-malformed', match: { method: 'POST' } }])).toThrow(
      /WebSocket upgrades, which are GET requests/,
    );
    expect(() => sandbox.control.setFaults([{ kind: 'ws-stall', afterEvents: -1 }])).toThrow(/afterEvents/);
    expect(() => sandbox.control.setFaults([{ kind: 'ws-malformed', frame: '' }])).toThrow(/frame/);
    expect(sandbox.control.faults()).toEqual([]);
  });
});

describe('control routes', () => {
  it('PUT/GET/DELETE /__sandbox/faults', async () => {
    const put = await client.call('PUT', '/__sandbox/faults', {
      json: { faults: [{ kind: 'status', status: 500, count: 3, match: { path: '/uploads' } }] },
    });
    expect(put.status).toBe(200);
    expect(put.body.faults).toEqual([
      { kind: 'status', status: 500, count: 3, remaining: 3, match: { path: '/uploads' } },
    ]);
    expect((await client.uploadBytes(Buffer.alloc(10))).status).toBe(500);
    expect((await client.call('GET', '/__sandbox/faults')).body.faults[0].remaining).toBe(2);
    expect(
      (await client.call('PUT', '/__sandbox/faults', { json: { faults: [{ kind: 'nope' }] } })).status,
    ).toBe(400);
    expect((await client.call('DELETE', '/__sandbox/faults')).body).toEqual({ faults: [] });
  });

  it('control routes are never faulted and need no key', async () => {
    await client.call('PUT', '/__sandbox/faults', { json: [{ kind: 'status', status: 503 }] });
    expect((await client.call('GET', '/jobs')).status).toBe(503);
    expect((await client.call('GET', '/__sandbox/counters', { key: undefined })).status).toBe(200);
    expect((await client.call('DELETE', '/__sandbox/faults', { key: undefined })).status).toBe(200);
  });

  it('GET /__sandbox/counters, PUT /__sandbox/credits, POST /__sandbox/clock', async () => {
    const id = await client.submit();
    const credits = await client.call('PUT', '/__sandbox/credits', {
      json: { userId: 'user_2', credits: 42 },
    });
    expect(credits.body).toEqual({ userId: 'user_2', credits: 42 });
    expect(sandbox.control.getCredits('user_2')).toBe(42);
    expect((await client.call('GET', '/__sandbox/credits?userId=user_2')).body.credits).toBe(42);
    expect(
      (await client.call('PUT', '/__sandbox/credits', { json: { userId: 'nobody', credits: 1 } })).status,
    ).toBe(404);
    expect(
      (await client.call('PUT', '/__sandbox/credits', { json: { userId: 'user_2', credits: -1 } })).status,
    ).toBe(400);
    expect((await client.call('POST', '/__sandbox/clock', { json: { advanceMs: 600_000 } })).status).toBe(
      200,
    );
    expect((await client.job(id)).status).toBe('COMPLETED');
    expect((await client.call('POST', '/__sandbox/clock', { json: { advanceMs: -5 } })).status).toBe(400);
    const counters = await client.call('GET', '/__sandbox/counters');
    expect(counters.body).toMatchObject({
      jobsCreated: { user_1: 1 },
      uploads: { user_1: 1 },
      creditsCharged: { user_1: 10 },
    });
    expect(counters.body.requests['GET /api/conference-summary/v1/jobs/:id']).toBe(1);
    expect((await client.call('POST', '/__sandbox/reset')).status).toBe(200);
    expect(sandbox.control.getCredits('user_2')).toBe(10_000);
    expect((await client.call('GET', `/jobs/${id}`)).status).toBe(404);
  });
});
