import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type HttpServerHandle, runHttpServer } from '../src/runners/run-http-server.js';

function createEchoServer(counters: { created: number; cleaned: number }) {
  counters.created += 1;
  const server = new McpServer({ name: 'echo', version: '1' });
  server.registerTool(
    'echo',
    { inputSchema: { text: z.string() }, outputSchema: { text: z.string() } },
    async ({ text }, extra) => {
      const token = extra._meta?.progressToken;
      if (token !== undefined) {
        for (const progress of [25, 75]) {
          await extra.sendNotification({
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

function rawRequest(url: string, headers: Record<string, string>, body: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers }, (response) => {
      let text = '';
      response.on('data', (chunk) => {
        text += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

describe('runHttpServer', () => {
  let handle: HttpServerHandle | undefined;
  afterEach(async () => {
    await handle?.close();
    handle = undefined;
  });

  it('serves one MCP server per session over Streamable HTTP, with progress notifications', async () => {
    const counters = { created: 0, cleaned: 0 };
    handle = await runHttpServer(() => createEchoServer(counters), { port: 0 });
    // The startup probe builds and disposes one instance to surface configuration errors early.
    expect(counters).toEqual({ created: 1, cleaned: 1 });
    expect(handle.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

    const client = new Client({ name: 'c', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(handle.url));
    await client.connect(transport);
    expect(handle.sessions()).toBe(1);
    const progress: number[] = [];
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } }, undefined, {
      onprogress: (update) => progress.push(update.progress),
    });
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

  it('answers requests without a valid session with a JSON-RPC error', async () => {
    handle = await runHttpServer(() => createEchoServer({ created: 0, cleaned: 0 }), {
      port: 0,
      probe: false,
    });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect((await rawRequest(handle.url, headers, list)).status).toBe(400);
    expect((await rawRequest(handle.url, { ...headers, 'mcp-session-id': 'nope' }, list)).status).toBe(404);
    expect((await rawRequest(handle.url, headers, '{not json')).status).toBe(400);
  });
});
