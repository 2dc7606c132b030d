import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type HttpServerHandle, runHttpServer } from '../src/runners/run-http-server.js';
import { INITIALIZE, rawRequest } from './support/raw-http.js';

function createEchoServer(counters: { created: number; cleaned: number }) {
  counters.created += 1;
  const server = new McpServer({ name: 'echo', version: '1' });
  server.registerTool(
    'echo',
    { inputSchema: z.object({ text: z.string() }), outputSchema: z.object({ text: z.string() }) },
    async ({ text }, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      if (token !== undefined) {
        for (const progress of [25, 75]) {
          await ctx.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken: token, progress, total: 100, message: `step ${progress}` },
          });
        }
      }
      return { content: [{ type: 'text', text }], structuredContent: { text } };
    },
  );
  return {
    server,
    cleanup: async () => {
      counters.cleaned += 1;
    },
  };
}

describe('runHttpServer', () => {
  let handle: HttpServerHandle | undefined;
  afterEach(async () => {
    await handle?.close();
    handle = undefined;
  });

  it('with --sessions, serves one MCP server per session, with progress notifications', async () => {
    const counters = { created: 0, cleaned: 0 };
    handle = await runHttpServer(() => createEchoServer(counters), { port: 0, sessions: true });
    // The startup probe builds and disposes one instance to surface configuration errors early.
    expect(counters).toEqual({ created: 1, cleaned: 1 });
    expect(handle.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

    const client = new Client({ name: 'c', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(handle.url));
    await client.connect(transport);
    expect(handle.sessions()).toBe(1);
    const progress: number[] = [];
    const result = await client.callTool(
      { name: 'echo', arguments: { text: 'hi' } },
      {
        onprogress: (update) => progress.push(update.progress),
      },
    );
    expect(result.structuredContent).toEqual({ text: 'hi' });
    expect(progress).toEqual([25, 75]);

    const second = new Client({ name: 'c2', version: '1' });
    await second.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
    expect(handle.sessions()).toBe(2);
    expect(counters.created).toBe(3);

    await transport.terminateSession();
    await client.close();
    await expect.poll(() => handle?.sessions()).toBe(1);
    expect(counters.cleaned).toBe(2);
    await second.close();
  });

  it('refuses a Host or Origin that is not an allowed host (DNS rebinding)', async () => {
    const counters = { created: 0, cleaned: 0 };
    handle = await runHttpServer(() => createEchoServer(counters), { port: 0, probe: false });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const port = handle.port;
    const rebound = await rawRequest(handle.url, { ...headers, host: `evil.example:${port}` }, INITIALIZE);
    expect(rebound.status).toBe(403);
    const crossOrigin = await rawRequest(
      handle.url,
      { ...headers, host: `127.0.0.1:${port}`, origin: 'https://evil.example' },
      INITIALIZE,
    );
    expect(crossOrigin.status).toBe(403);
    expect(counters.created).toBe(0);
    const allowed = await rawRequest(handle.url, { ...headers, host: `localhost:${port}` }, INITIALIZE);
    expect(allowed.status).toBe(200);
    expect(counters.created).toBe(1);
  });

  it('accepts the names given as allowed hosts (--allowed-host), whatever their case or port', async () => {
    handle = await runHttpServer(() => createEchoServer({ created: 0, cleaned: 0 }), {
      port: 0,
      probe: false,
      allowedHosts: ['MCP.Example.com:8443', 'fd00:0::5'],
    });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const named = await rawRequest(
      handle.url,
      { ...headers, host: `mcp.example.com:${handle.port}` },
      INITIALIZE,
    );
    expect(named.status).toBe(200);
    const ipv6 = await rawRequest(handle.url, { ...headers, host: `[fd00::5]:${handle.port}` }, INITIALIZE);
    expect(ipv6.status, ipv6.body).toBe(200);
    const other = await rawRequest(
      handle.url,
      { ...headers, host: `example.com:${handle.port}` },
      INITIALIZE,
    );
    expect(other.status).toBe(403);
  });

  it('with --sessions, answers requests without a valid session with a JSON-RPC error', async () => {
    handle = await runHttpServer(() => createEchoServer({ created: 0, cleaned: 0 }), {
      port: 0,
      probe: false,
      sessions: true,
    });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect((await rawRequest(handle.url, headers, list)).status).toBe(400);
    expect((await rawRequest(handle.url, { ...headers, 'mcp-session-id': 'nope' }, list)).status).toBe(404);
    expect((await rawRequest(handle.url, headers, '{not json')).status).toBe(400);
  });

  it('is stateless by default: clients that never send DELETE leave no session and no server behind', async () => {
    const counters = { created: 0, cleaned: 0 };
    handle = await runHttpServer(() => createEchoServer(counters), { port: 0, probe: false });
    expect(handle.mode).toBe('stateless');
    // 50 clients one after another: each must leave nothing behind (the bench counts 10,000 for memory).
    for (let index = 0; index < 50; index += 1) {
      const client = new Client({ name: `abandoning-${index}`, version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
      const tools = await client.listTools();
      expect(tools.tools.map((tool) => tool.name)).toEqual(['echo']);
      const result = await client.callTool({ name: 'echo', arguments: { text: `hello ${index}` } });
      expect(result.structuredContent).toEqual({ text: `hello ${index}` });
      // Like the SDK client, the Inspector and the conformance suite: gone without a DELETE.
      await client.close();
      expect(handle.sessions()).toBe(0);
    }
    await expect.poll(() => handle?.instances()).toBe(0);
    expect(counters.created).toBeGreaterThanOrEqual(50);
    expect(counters.cleaned).toBe(counters.created);
  }, 60_000);

  it('is stateless by default: progress still arrives, and GET streams are refused with 405', async () => {
    handle = await runHttpServer(() => createEchoServer({ created: 0, cleaned: 0 }), {
      port: 0,
      probe: false,
    });
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
    const progress: number[] = [];
    await client.callTool(
      { name: 'echo', arguments: { text: 'hi' } },
      {
        onprogress: (update) => progress.push(update.progress),
      },
    );
    expect(progress).toEqual([25, 75]);
    await client.close();
    const get = await rawRequest(
      handle.url,
      { host: `127.0.0.1:${handle.port}`, accept: 'text/event-stream' },
      '',
      'GET',
    );
    expect(get.status).toBe(405);
  });

  it('with --sessions, closes and forgets sessions idle longer than the idle time (clock injected)', async () => {
    let now = Date.UTC(2026, 0, 1);
    const counters = { created: 0, cleaned: 0 };
    const minutes = 60_000;
    handle = await runHttpServer(() => createEchoServer(counters), {
      port: 0,
      probe: false,
      sessions: { idleMs: 30 * minutes },
      now: () => now,
    });
    const first = new Client({ name: 'first', version: '1' });
    await first.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
    now += 29 * minutes;
    // A call is activity: the idle time starts again.
    await first.callTool({ name: 'echo', arguments: { text: 'still here' } });
    now += 29 * minutes;
    const second = new Client({ name: 'second', version: '1' });
    await second.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
    expect(handle.sessions()).toBe(2);

    now += 31 * minutes;
    const third = new Client({ name: 'third', version: '1' });
    await third.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
    expect(handle.sessions()).toBe(1);
    await expect.poll(() => counters.cleaned).toBe(2);
    await expect(first.callTool({ name: 'echo', arguments: { text: 'late' } })).rejects.toThrow(
      /session not found/i,
    );
    expect(await third.callTool({ name: 'echo', arguments: { text: 'new' } })).toMatchObject({
      structuredContent: { text: 'new' },
    });
    await Promise.allSettled([first.close(), second.close(), third.close()]);
  });

  it('with --sessions, opening one session over the cap closes the least recently active one', async () => {
    const counters = { created: 0, cleaned: 0 };
    handle = await runHttpServer(() => createEchoServer(counters), {
      port: 0,
      probe: false,
      sessions: { maxSessions: 2 },
    });
    const clients = ['a', 'b', 'c'].map((name) => new Client({ name, version: '1' }));
    const [a, b, c] = clients as [Client, Client, Client];
    await a.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
    await b.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
    // a is used after b opened, so b is now the least recently active.
    await a.callTool({ name: 'echo', arguments: { text: 'a' } });
    await c.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
    expect(handle.sessions()).toBe(2);
    await expect.poll(() => counters.cleaned).toBe(1);
    await expect(b.callTool({ name: 'echo', arguments: { text: 'b' } })).rejects.toThrow(
      /session not found/i,
    );
    expect(await a.callTool({ name: 'echo', arguments: { text: 'a' } })).toMatchObject({
      structuredContent: { text: 'a' },
    });
    expect(await c.callTool({ name: 'echo', arguments: { text: 'c' } })).toMatchObject({
      structuredContent: { text: 'c' },
    });
    await Promise.allSettled(clients.map((client) => client.close()));
  });

  it('answers /healthz and /readyz without the Host check, and refuses to bind off loopback without auth', async () => {
    handle = await runHttpServer(() => createEchoServer({ created: 0, cleaned: 0 }), {
      port: 0,
      probe: false,
    });
    const base = handle.url.replace(/\/mcp$/, '');
    const health = await rawRequest(`${base}/healthz`, { host: `10.1.2.3:${handle.port}` }, '', 'GET');
    expect(health).toMatchObject({ status: 200, body: JSON.stringify({ ok: true }) });
    const ready = await rawRequest(`${base}/readyz`, { host: `10.1.2.3:${handle.port}` }, '', 'GET');
    expect(ready).toMatchObject({ status: 200, body: JSON.stringify({ ok: true }) });

    await expect(
      runHttpServer(() => createEchoServer({ created: 0, cleaned: 0 }), { port: 0, host: '0.0.0.0' }),
    ).rejects.toThrow(/POLYMODAL_TENANTS_FILE/);
  });

  it('on close (SIGTERM) stops accepting, and lets a call under way answer before it ends', async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started: () => void = () => {};
    const callStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const factory = () => {
      const server = new McpServer({ name: 'slow', version: '1' });
      server.registerTool('slow', { inputSchema: z.object({}) }, async () => {
        started();
        await released;
        return { content: [{ type: 'text', text: 'finished' }] };
      });
      return { server, cleanup: async () => {} };
    };
    const running = await runHttpServer(factory, { port: 0, probe: false });
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url)));
    const call = client.callTool({ name: 'slow', arguments: {} });
    await callStarted;
    const closed = running.close();
    const latecomer = new Client({ name: 'late', version: '1' });
    await expect(
      latecomer.connect(new StreamableHTTPClientTransport(new URL(running.url))),
    ).rejects.toThrow();
    release();
    expect(await call).toMatchObject({ content: [{ type: 'text', text: 'finished' }] });
    await closed;
    expect(running.instances()).toBe(0);
    await client.close();
  });
});
