import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../src/index.js';
import { createClient } from './support/sandbox-client.js';

let sandbox: Sandbox;
let client: ReturnType<typeof createClient>;

beforeAll(async () => {
  sandbox = await startSandbox({
    speed: 100,
    config: {
      users: [
        {
          id: 'alice',
          site: 'acme',
          keys: [
            { key: 'pm_live_alice_secret_1' },
            { key: 'pm_live_alice_revoked', revoked: true },
            { key: 'pm_live_alice_expired', expiresAt: '2001-01-01T00:00:00Z' },
          ],
        },
        { id: 'bob', site: 'acme', keys: [{ key: 'pm_live_bob_secret_1' }] },
        {
          id: 'carol',
          site: 'acme',
          keys: [{ key: 'pm_live_carol_nofeature' }],
          features: { meetingSummary: false },
        },
        {
          id: 'dave',
          site: 'other-site',
          keys: [
            { key: 'pm_live_dave_secret_1' },
            { key: 'pm_live_dave_later', expiresAt: '2999-01-01T00:00:00Z' },
          ],
        },
      ],
    },
  });
  client = createClient(sandbox);
});
afterAll(() => sandbox.close());

describe('authentication', () => {
  it('exposes the configured keys', () => {
    expect(sandbox.apiKey).toBe('pm_live_alice_secret_1');
    expect(sandbox.apiKey2).toBe('pm_live_bob_secret_1');
    expect(sandbox.keys.revoked).toBe('pm_live_alice_revoked');
    expect(sandbox.keys.expired).toBe('pm_live_alice_expired');
  });

  for (const scheme of ['x-api-key', 'bearer'] as const) {
    it(`accepts a valid key via ${scheme}`, async () => {
      const result = await client.call('GET', '/jobs', { scheme });
      expect(result.status).toBe(200);
    });

    it(`answers 401 for a missing, malformed, unknown, revoked or expired key via ${scheme}`, async () => {
      const keys = [
        undefined,
        'not-a-key',
        'pm_live_unknown_key_123',
        'pm_live_alice_revoked',
        'pm_live_alice_expired',
      ];
      for (const key of keys) {
        const result = await client.call('GET', '/jobs', { key, scheme });
        expect(result.status, String(key)).toBe(401);
        expect(typeof result.body.error).toBe('string');
        if (key) expect(result.body.error).not.toContain(key);
      }
    });
  }

  it('refuses a key once the sandbox clock passes its expiry', async () => {
    expect((await client.call('GET', '/jobs', { key: 'pm_live_dave_later' })).status).toBe(200);
    const { control } = sandbox;
    const years = (new Date('2999-01-02').getTime() - control.now()) as number;
    control.advance(years);
    expect((await client.call('GET', '/jobs', { key: 'pm_live_dave_later' })).status).toBe(401);
    await control.reset();
    expect((await client.call('GET', '/jobs', { key: 'pm_live_dave_later' })).status).toBe(200);
  });

  it('ignores an Authorization header of another scheme', async () => {
    const result = await client.call('GET', '/jobs', {
      key: undefined,
      headers: { authorization: 'Basic abc' },
    });
    expect(result.status).toBe(401);
    expect(result.body.error).toMatch(/missing API key/);
  });

  it('answers 503 while authentication is unavailable, then recovers', async () => {
    sandbox.control.setFaults([{ kind: 'auth-unavailable', count: 1 }]);
    const down = await client.call('GET', '/jobs');
    expect(down.status).toBe(503);
    expect(down.body.error).toMatch(/unavailable/);
    expect((await client.call('GET', '/jobs')).status).toBe(200);
  });

  it('answers 403 when the meeting feature is off for the account', async () => {
    const listed = await client.call('GET', '/jobs', { key: 'pm_live_carol_nofeature' });
    expect(listed.status).toBe(403);
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(10)]), 'a.wav');
    const uploaded = await fetch(`${client.base}/uploads`, {
      method: 'POST',
      headers: { 'x-api-key': 'pm_live_carol_nofeature' },
      body: form,
    });
    expect(uploaded.status).toBe(403);
  });

  it('keeps recordings private between users of a site and across sites (404)', async () => {
    const id = await client.submit();
    expect((await client.call('GET', `/jobs/${id}`)).status).toBe(200);
    for (const key of ['pm_live_bob_secret_1', 'pm_live_dave_secret_1']) {
      expect((await client.call('GET', `/jobs/${id}`, { key })).status).toBe(404);
      expect((await client.call('POST', `/jobs/${id}`, { key, json: { action: 'cancel' } })).status).toBe(
        404,
      );
      expect((await client.call('PATCH', `/jobs/${id}`, { key, json: { title: 'x' } })).status).toBe(404);
      expect((await client.call('DELETE', `/jobs/${id}`, { key })).status).toBe(404);
      const list = await client.call('GET', '/jobs', { key });
      expect(list.body.jobs.map((job: { id: string }) => job.id)).not.toContain(id);
    }
  });
});

describe('routing', () => {
  it('answers 404 {error} for an unknown route and 405 {error} with Allow for a wrong method', async () => {
    const unknown = await client.call('GET', '/nope');
    expect(unknown.status).toBe(404);
    expect(typeof unknown.body.error).toBe('string');
    const wrong = await client.call('PUT', '/jobs');
    expect(wrong.status).toBe(405);
    expect(typeof wrong.body.error).toBe('string');
    expect(wrong.headers.get('allow')).toBe('GET, POST');
    expect((await client.call('GET', '/uploads')).status).toBe(405);
  });

  it('answers 400 for invalid JSON', async () => {
    const result = await client.call('POST', '/jobs', {
      body: '{"uploadReceipt": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(result.status).toBe(400);
    expect(result.body.error).toMatch(/invalid JSON/);
  });
});
