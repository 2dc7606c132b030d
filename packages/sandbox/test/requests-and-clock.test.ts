/**
 * The request log (what arrived, when, on both clocks, with what answer and user) and the held clock
 * (time-based behaviour frozen until released), as a client test would use them.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type Sandbox, startSandbox } from '../src/index.js';
import { createClient } from './support/sandbox-client.js';

let sandbox: Sandbox;
let client: ReturnType<typeof createClient>;

beforeAll(async () => {
  sandbox = await startSandbox({ speed: 100 });
  client = createClient(sandbox);
});
beforeEach(() => sandbox.control.reset());
afterAll(() => sandbox.close());

const JOBS_ROUTE = 'GET /api/conference-summary/v1/jobs';

/** Opens a Thai recognition stream with the key in the query, as the platform requires; resolves the status. */
async function upgrade(key: string): Promise<number> {
  const session = await fetch(`${sandbox.url}/api/thai-asr/sessions`, {
    method: 'POST',
    headers: { 'x-api-key': sandbox.apiKey, 'content-type': 'application/json' },
    body: '{}',
  });
  const { ws_url: url } = (await session.json()) as { ws_url: string };
  return new Promise((resolve) => {
    const socket = new WebSocket(`${url}&api_key=${encodeURIComponent(key)}`);
    socket.once('open', () => {
      socket.terminate();
      resolve(101);
    });
    socket.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
    socket.on('error', () => undefined);
  });
}

describe('request log', () => {
  it('records every request in arrival order with route, both clocks, status and user, and never the key', async () => {
    const before = Date.now();
    expect((await client.call('GET', '/jobs?limit=5')).status).toBe(200);
    expect((await client.call('GET', '/jobs', { key: undefined })).status).toBe(401);
    expect((await client.call('GET', '/nowhere', { scheme: 'bearer' })).status).toBe(404);
    expect((await client.call('DELETE', '/jobs')).status).toBe(405);
    expect(await upgrade(sandbox.apiKey)).toBe(101);
    expect(await upgrade('pm_live_not_a_key')).toBe(401);
    const after = Date.now();

    const log = sandbox.control.requests();
    expect(
      log.map(({ method, path, route, status, user }) => ({ method, path, route, status, user })),
    ).toEqual([
      {
        method: 'GET',
        path: '/api/conference-summary/v1/jobs',
        route: JOBS_ROUTE,
        status: 200,
        user: 'user_1',
      },
      {
        method: 'GET',
        path: '/api/conference-summary/v1/jobs',
        route: JOBS_ROUTE,
        status: 401,
        user: undefined,
      },
      {
        method: 'GET',
        path: '/api/conference-summary/v1/nowhere',
        route: 'GET (unknown route)',
        status: 404,
        user: undefined,
      },
      {
        method: 'DELETE',
        path: '/api/conference-summary/v1/jobs',
        route: 'DELETE /api/conference-summary/v1/jobs',
        status: 405,
        user: undefined,
      },
      {
        method: 'POST',
        path: '/api/thai-asr/sessions',
        route: 'POST /api/thai-asr/sessions',
        status: 201,
        user: 'user_1',
      },
      {
        method: 'GET',
        path: '/api/thai-asr/stream',
        route: 'WS /api/thai-asr/stream',
        status: undefined,
        user: 'user_1',
      },
      {
        method: 'POST',
        path: '/api/thai-asr/sessions',
        route: 'POST /api/thai-asr/sessions',
        status: 201,
        user: 'user_1',
      },
      {
        method: 'GET',
        path: '/api/thai-asr/stream',
        route: 'WS /api/thai-asr/stream',
        status: 401,
        user: undefined,
      },
    ]);
    let previous = before;
    for (const entry of log) {
      expect(entry.at).toBeGreaterThanOrEqual(previous);
      previous = entry.at;
    }
    expect(previous).toBeLessThanOrEqual(after);
    // Neither the header key, the bearer key nor the api_key query parameter is kept.
    expect(JSON.stringify(log)).not.toContain(sandbox.apiKey);
    expect(JSON.stringify(log)).not.toContain('pm_live');
  });

  it('takes the arrival time before a latency fault delays the answer', async () => {
    sandbox.control.setFaults([{ match: { method: 'GET' }, kind: 'latency', latencyMs: 1000, count: 1 }]);
    expect((await client.call('GET', '/jobs')).status).toBe(200);
    const answered = Date.now();
    const [entry] = sandbox.control.requests();
    // Taken after the delay, the arrival would be only milliseconds before the answer.
    expect(answered - (entry?.at ?? answered)).toBeGreaterThanOrEqual(980);
  });

  it('stamps the sandbox clock too, which moves with advance() while wall time does not', async () => {
    await client.call('GET', '/jobs');
    sandbox.control.advance(3_600_000);
    await client.call('GET', '/jobs');
    const [first, second] = sandbox.control.requests();
    if (!first || !second) throw new Error('expected two logged requests');
    expect(second.clockAt - first.clockAt).toBeGreaterThanOrEqual(3_600_000);
    expect(second.at - first.at).toBeLessThan(3_600_000);
    expect(Math.abs(first.clockAt - first.at)).toBeLessThan(60_000);
  });

  it('logs faulted requests: the faulted status, or none when the connection was reset', async () => {
    sandbox.control.setFaults([
      { match: { path: '/jobs$' }, kind: 'status', status: 503, count: 1 },
      { match: { path: '/jobs$' }, kind: 'reset-before', count: 1 },
    ]);
    expect((await client.call('GET', '/jobs')).status).toBe(503);
    await expect(client.call('GET', '/jobs')).rejects.toThrow();
    expect((await client.call('GET', '/jobs')).status).toBe(200);
    expect(sandbox.control.requests().map((entry) => entry.status)).toEqual([503, undefined, 200]);
  });

  it('filters by method and path pattern, in process and over GET /__sandbox/requests (itself not logged)', async () => {
    const id = await client.submit();
    await client.job(id);
    await client.job(id);
    const jobReads = sandbox.control.requests({ method: 'get', path: new RegExp(`/jobs/${id}$`) });
    expect(jobReads).toHaveLength(2);
    expect(sandbox.control.requests({ path: '/uploads$' }).map((entry) => entry.method)).toEqual(['POST']);

    const query = new URLSearchParams({ method: 'GET', path: `/jobs/${id}$` });
    const overHttp = await client.call('GET', `/__sandbox/requests?${query}`);
    expect(overHttp.status).toBe(200);
    expect(overHttp.body).toEqual({ requests: jobReads });
    const all = await client.call('GET', '/__sandbox/requests');
    expect(all.body.requests.map((entry: { route: string }) => entry.route)).toEqual([
      'POST /api/conference-summary/v1/uploads',
      'POST /api/conference-summary/v1/jobs',
      'GET /api/conference-summary/v1/jobs/:id',
      'GET /api/conference-summary/v1/jobs/:id',
    ]);
    const invalid = await client.call('GET', '/__sandbox/requests?path=(');
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toMatch(/regular expression/);
  });

  it('is emptied by reset()', async () => {
    await client.call('GET', '/jobs');
    expect(sandbox.control.requests()).toHaveLength(1);
    await sandbox.control.reset();
    expect(sandbox.control.requests()).toEqual([]);
  });
});

const TTS = '/api/tts/v1';
const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

describe('held clock', () => {
  it('freezes jobs while held: the same status and progress however much real time passes; advance() still moves them', async () => {
    sandbox.control.holdClock();
    const id = await client.submit();
    const speech = await fetch(`${sandbox.url}${TTS}/audio/speech`, {
      method: 'POST',
      headers: { 'x-api-key': sandbox.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Held still.' }),
    });
    const { statusPath } = (await speech.json()) as { statusPath: string };
    const speechState = async () =>
      (
        (await (
          await fetch(`${sandbox.url}${statusPath}`, { headers: { 'x-api-key': sandbox.apiKey } })
        ).json()) as {
          state: string;
        }
      ).state;
    const first = await client.job(id);
    const firstSpeech = await speechState();
    const heldNow = sandbox.control.now();
    // At speed 100 both would be finished well within this wait if the clock ran.
    await pause(1500);
    const second = await client.job(id);
    expect({ status: second.status, progress: second.progress }).toEqual({
      status: first.status,
      progress: first.progress,
    });
    expect(second.status).not.toBe('COMPLETED');
    expect(await speechState()).toBe(firstSpeech);
    expect(firstSpeech).toBe('PENDING');
    expect(sandbox.control.now()).toBe(heldNow);
    const stamps = sandbox.control.requests({ method: 'GET' }).map((entry) => entry.clockAt);
    expect(new Set(stamps)).toEqual(new Set([heldNow]));

    sandbox.control.advance(10 * 60_000);
    expect(sandbox.control.isClockHeld()).toBe(true);
    expect(sandbox.control.now()).toBe(heldNow + 10 * 60_000);
    expect((await client.job(id)).status).toBe('COMPLETED');
    expect(await speechState()).toBe('SUCCESS');
  });

  it('runs again on release, from where it was held', async () => {
    sandbox.control.holdClock();
    const id = await client.submit();
    const heldNow = sandbox.control.now();
    await pause(1200);
    sandbox.control.releaseClock();
    expect(sandbox.control.isClockHeld()).toBe(false);
    // Released, it neither went back nor caught up with the 1.2 s spent held.
    const released = sandbox.control.now();
    expect(released).toBeGreaterThanOrEqual(heldNow);
    expect(released - heldNow).toBeLessThan(1200);
    const deadline = Date.now() + 15_000;
    let status = (await client.job(id)).status;
    while (status !== 'COMPLETED' && Date.now() < deadline) {
      await pause(50);
      status = (await client.job(id)).status;
    }
    expect(status).toBe('COMPLETED');
    expect(sandbox.control.now()).toBeGreaterThan(released);
  });

  it('holds, advances and releases over POST /__sandbox/clock, refusing anything but one of the three shapes', async () => {
    const held = await client.call('POST', '/__sandbox/clock', { json: { hold: true } });
    expect(held.status).toBe(200);
    expect(held.body.held).toBe(true);
    const heldAt = Date.parse(held.body.now);
    expect(heldAt).toBe(sandbox.control.now());
    const advanced = await client.call('POST', '/__sandbox/clock', { json: { advanceMs: 90_000 } });
    expect(advanced.body).toEqual({
      now: new Date(heldAt + 90_000).toISOString(),
      held: true,
      advancedMs: 90_000,
    });
    const released = await client.call('POST', '/__sandbox/clock', { json: { release: true } });
    expect(released.body.held).toBe(false);
    expect(Date.parse(released.body.now)).toBeGreaterThanOrEqual(heldAt + 90_000);
    for (const body of [
      {},
      { hold: false },
      { release: 'yes' },
      { hold: true, advanceMs: 5 },
      { advanceMs: -1 },
    ]) {
      const refused = await client.call('POST', '/__sandbox/clock', { json: body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error).toMatch(/advanceMs.*hold: true.*release: true/);
    }
    expect(sandbox.control.isClockHeld()).toBe(false);
  });

  it('reset() releases the clock and returns to wall time', async () => {
    sandbox.control.holdClock();
    sandbox.control.advance(86_400_000);
    await sandbox.control.reset();
    expect(sandbox.control.isClockHeld()).toBe(false);
    expect(Math.abs(sandbox.control.now() - Date.now())).toBeLessThan(60_000);
  });
});

describe("startSandbox({ clock: 'held' })", () => {
  it('starts with the clock held, and reset() holds it again', async () => {
    const held = await startSandbox({ clock: 'held' });
    try {
      expect(held.control.isClockHeld()).toBe(true);
      const start = held.control.now();
      await pause(1100);
      expect(held.control.now()).toBe(start);
      held.control.advance(7 * 86_400_000);
      await held.control.reset();
      expect(held.control.isClockHeld()).toBe(true);
      const afterReset = held.control.now();
      expect(afterReset - Date.now()).toBeLessThan(60_000);
      held.control.releaseClock();
      expect(held.control.isClockHeld()).toBe(false);
    } finally {
      await held.close();
    }
    await expect(startSandbox({ clock: 'stopped' as never })).rejects.toThrow(
      /clock must be 'running' or 'held'/,
    );
  });
});
