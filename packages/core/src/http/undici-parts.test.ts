import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, request } from './undici-parts.js';

describe('undici-parts', () => {
  let server: http.Server;
  let origin: string;
  const seen: string[] = [];

  beforeAll(async () => {
    server = http.createServer((incoming, outgoing) => {
      seen.push(`${incoming.method} ${incoming.url}`);
      outgoing.end('answered');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends a request through an agent made before undici was loaded, with its path and query', async () => {
    const agent = new Agent({ keepAliveTimeout: 1_000 });
    try {
      const response = await request(`${origin}/jobs?status=done`, { dispatcher: agent, method: 'GET' });
      expect(response.statusCode).toBe(200);
      expect(await response.body.text()).toBe('answered');
      expect(seen).toContain('GET /jobs?status=done');
    } finally {
      await agent.close();
    }
  });

  it('closes an agent that never carried a request, and refuses requests through it afterwards', async () => {
    const agent = new Agent();
    await agent.close();
    const before = seen.length;
    await expect(request(`${origin}/late`, { dispatcher: agent })).rejects.toMatchObject({
      code: 'UND_ERR_CLOSED',
    });
    expect(seen.length).toBe(before);
  });
});
