import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createAccounts } from './accounts.js';
import { createAuthenticator } from './authenticator.js';
import { createClock } from './clock.js';
import { createCounterRegistry } from './counters.js';
import { createPrng } from './create-prng.js';
import { createFaultEngine } from './fault-engine.js';
import { HttpError } from './http-error.js';
import { createRequestLog } from './request-log.js';
import { createRouter } from './router.js';
import { createSandboxServer, type SandboxServer } from './sandbox-server.js';

const KEY = 'pm_live_unit_test_key';
let server: SandboxServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server with one HTTP route and one WebSocket echo route that takes the key as `api_key`. */
async function start() {
  const counters = createCounterRegistry();
  const accounts = createAccounts([{ id: 'u', name: 'U', site: 's', credits: 0, keys: [{ key: KEY }] }]);
  const faults = createFaultEngine({ random: createPrng(1), counters });
  const router = createRouter();
  router.route('GET', '/boom', () => {
    throw new Error('unexpected');
  });
  router.route('GET', '/teapot', () => {
    throw new HttpError(418, 'short and stout', {
      fields: { spout: true },
      headers: { 'x-tea': 'earl grey' },
    });
  });
  router.upgrade('/echo', (context) => {
    const { user } = context.authenticate(['query']);
    return (socket) => socket.on('message', (data) => socket.send(`${user.id}:${String(data)}`));
  });
  const errors: unknown[] = [];
  server = createSandboxServer({
    router,
    controlRouter: createRouter(),
    faults,
    counters,
    requestLog: createRequestLog(),
    clock: createClock(),
    authenticator: createAuthenticator({ accounts, clock: createClock() }),
    beforeRequest: () => {},
    onError: (error) => errors.push(error),
  });
  const url = await server.listen({ port: 0, host: '127.0.0.1' });
  return { url, faults, errors, counters };
}

function connect(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

describe('createSandboxServer', () => {
  it('answers unexpected handler errors with 500 {error} and reports them', async () => {
    const { url, errors } = await start();
    const response = await fetch(`${url}/boom`);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: 'internal error in the sandbox' });
    expect(errors).toHaveLength(1);
  });

  it('sends the extra fields and headers of an HttpError', async () => {
    const { url } = await start();
    const response = await fetch(`${url}/teapot`);
    expect(response.status).toBe(418);
    expect(response.headers.get('x-tea')).toBe('earl grey');
    expect(await response.json()).toEqual({ spout: true, error: 'short and stout' });
  });

  it('routes WebSocket upgrades, authenticating before the upgrade', async () => {
    const { url, faults } = await start();
    const wsUrl = url.replace('http', 'ws');
    const socket = await connect(`${wsUrl}/echo?api_key=${KEY}`);
    const reply = new Promise<string>((resolve) => socket.once('message', (data) => resolve(String(data))));
    socket.send('hello');
    expect(await reply).toBe('u:hello');
    socket.close();
    await expect(connect(`${wsUrl}/echo?api_key=pm_live_wrong_key_1`)).rejects.toThrow(/401/);
    await expect(connect(`${wsUrl}/nowhere`)).rejects.toThrow(/404/);
    faults.set([{ kind: 'status', status: 503, count: 1 }]);
    await expect(connect(`${wsUrl}/echo?api_key=${KEY}`)).rejects.toThrow(/503/);
  });
});
