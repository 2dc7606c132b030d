/**
 * Both MCP protocol generations from one server factory, over stdio and over Streamable HTTP: a client pinned
 * to 2026-07-28 and a 2025-11-25 client see the same server (capabilities, server info, instructions, tools)
 * and get the same answers; `protocol: '2025-11-25'` makes `server/discover` fail so that a negotiating
 * client falls back; views are offered per request, to a request whose client declares the extension; and a
 * tool's question is asked as each generation and transport allows.
 */
import { mkdtempSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { type JSONRPCMessage, ReadBuffer, serializeMessage } from '@modelcontextprotocol/server';
import type { FileAccess } from '@polymodal/core';
import { createFileAccess } from '@polymodal/core/files';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger } from '../src/logging/create-logger.js';
import { type RootsSync, syncRoots } from '../src/roots/sync-roots.js';
import { syncSessionRoots } from '../src/roots/sync-session-roots.js';
import { type HttpServerHandle, runHttpServer } from '../src/runners/run-http-server.js';
import { runStdioServer } from '../src/runners/run-stdio-server.js';
import type { ServerInstance } from '../src/runners/server-instance.js';
import { createSdkServer, installTools } from '../src/server/sdk-server.js';
import { defineTool, type ToolView, toolGroup } from '../src/tools/define-tool.js';
import type { ToolDeps } from '../src/tools/tool-deps.js';
import type { ViewsPolicy } from '../src/views/views-policy.js';
import { INITIALIZE, rawRequest } from './support/raw-http.js';
import { modernClient } from './support/server-harness.js';
import { serverWithTools } from './support/test-tools.js';

const RENDERS_VIEWS = {
  extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
};
const PLAYER: ToolView = {
  name: 'player',
  title: 'Player',
  description: 'Plays.',
  html: () => Promise.resolve('<!doctype html><title>Player</title>'),
};
const CONSENT = z.object({ agree: z.boolean() });
/** The output directory: empty, so that resources/list lists only what the server itself adds. */
const OUTPUTS = mkdtempSync(path.join(os.tmpdir(), 'generations-outputs-'));

const tools = [
  defineTool({
    name: 'speak',
    title: 'Speak',
    description: 'Speaks.',
    inputSchema: { text: z.string() },
    outputSchema: { spoken: z.string() },
    annotations: { readOnlyHint: false },
    view: PLAYER,
    handler: () => async (args) => ({
      content: [{ type: 'text', text: `spoke ${args.text}` }],
      structuredContent: { spoken: args.text },
    }),
  }),
  defineTool({
    name: 'spoken_page',
    title: 'Spoken page',
    description: 'A page the player shows.',
    inputSchema: { page: z.number() },
    annotations: { readOnlyHint: true },
    appOnly: true,
    handler: () => async (args) => ({ content: [{ type: 'text', text: `page ${args.page}` }] }),
  }),
  defineTool({
    name: 'clone',
    title: 'Clone',
    description: 'Asks for consent where the client can be asked.',
    inputSchema: { name: z.string() },
    annotations: { readOnlyHint: false },
    handler: (deps: { runs: string[] }, session) => async (args) => {
      deps.runs.push(`run ${args.name}`);
      if (!session.canElicit()) return { content: [{ type: 'text', text: 'not asked' }] };
      const answer = await session.elicit(
        {
          message: `Clone ${args.name}?`,
          requestedSchema: {
            type: 'object',
            properties: { agree: { type: 'boolean', title: 'I agree' } },
            required: ['agree'],
          },
        },
        { signal: new AbortController().signal },
      );
      deps.runs.push(`answered ${answer.action}`);
      const agreed = answer.action === 'accept' && CONSENT.safeParse(answer.content).data?.agree === true;
      return { content: [{ type: 'text', text: agreed ? `cloned ${args.name}` : 'declined' }] };
    },
  }),
];

/** A server of the three tools, as every Polymodal server is built (`createSdkServer`, `installTools`). */
function factory(deps: { runs: string[] }, views: ViewsPolicy = 'auto') {
  return (): ServerInstance => ({
    server: serverWithTools({
      name: 'generations',
      version: '1.2.3',
      instructions: 'Call speak, then clone.',
      groups: [toolGroup({ tools, deps: () => deps })],
      files: createFileAccess({ allowedDirs: [], outputDir: OUTPUTS }),
      views,
    }),
    cleanup: () => Promise.resolve(),
  });
}

/** What a client was told about the server, whichever generation told it. */
function described(client: Client) {
  return {
    capabilities: client.getServerCapabilities(),
    server: client.getServerVersion(),
    instructions: client.getInstructions(),
  };
}

/** A result without the 2026-07-28 server identity every modern result carries in `_meta`. */
function withoutServerInfo(result: Record<string, unknown>) {
  const { _meta, ...rest } = result as { _meta?: Record<string, unknown> };
  const { 'io.modelcontextprotocol/serverInfo': _serverInfo, ...meta } = _meta ?? {};
  return Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
}

const clients: Client[] = [];
const handles: HttpServerHandle[] = [];
const stdioServers: (() => Promise<void>)[] = [];
afterAll(() => rm(OUTPUTS, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
  await Promise.allSettled(handles.splice(0).map((handle) => handle.close()));
  await Promise.allSettled(stdioServers.splice(0).map((stop) => stop()));
});

function track(client: Client): Client {
  clients.push(client);
  return client;
}

/** A client of the HTTP server at `url`: pinned to 2026-07-28, negotiating, or 2025-11-25 only. */
async function httpClient(
  url: string,
  mode: 'pin' | 'auto' | 'legacy',
  capabilities: Record<string, unknown> = {},
): Promise<Client> {
  const client = track(clientFor(mode, capabilities));
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

function clientFor(mode: 'pin' | 'auto' | 'legacy', capabilities: Record<string, unknown>): Client {
  if (mode === 'pin') return modernClient('generations-test', capabilities);
  return new Client(
    { name: 'generations-test', version: '1.0.0' },
    { capabilities, ...(mode === 'auto' ? { versionNegotiation: { mode: 'auto' as const } } : {}) },
  );
}

/**
 * The client side of a stdio connection over in-process streams (the SDK's own stdio client spawns a
 * process); `runStdioServer` serves the other side.
 */
function streamPair(): { stdin: PassThrough; stdout: PassThrough; client: Transport } {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const buffer = new ReadBuffer();
  const client: Transport = {
    async start() {
      stdout.on('data', (chunk: Buffer) => {
        buffer.append(chunk);
        for (let message = buffer.readMessage(); message; message = buffer.readMessage()) {
          client.onmessage?.(message);
        }
      });
    },
    async send(message: JSONRPCMessage) {
      stdin.write(serializeMessage(message));
    },
    async close() {
      stdin.end();
      client.onclose?.();
    },
  };
  return { stdin, stdout, client };
}

async function stdioClient(
  deps: { runs: string[] },
  mode: 'pin' | 'auto' | 'legacy',
  options: { protocol?: '2025-11-25'; capabilities?: Record<string, unknown> } = {},
): Promise<Client> {
  const { stdin, stdout, client: transport } = streamPair();
  let exited = false;
  await runStdioServer(factory(deps), {
    stdin,
    stdout,
    exit: () => {
      exited = true;
    },
    writeError: () => {},
    ...(options.protocol ? { protocol: options.protocol } : {}),
  });
  stdioServers.push(async () => {
    stdin.end();
    await expect.poll(() => exited).toBe(true);
  });
  const client = track(clientFor(mode, options.capabilities ?? {}));
  await client.connect(transport);
  return client;
}

describe('both protocol generations', () => {
  it.each(['stdio', 'http'] as const)(
    'over %s, a 2026-07-28 client and a 2025-11-25 client see one server and get the same answers',
    async (transport) => {
      const deps = { runs: [] as string[] };
      let url = '';
      if (transport === 'http') {
        const handle = await runHttpServer(factory(deps), { port: 0 });
        handles.push(handle);
        url = handle.url;
      }
      const connect = (mode: 'pin' | 'legacy') =>
        transport === 'http' ? httpClient(url, mode) : stdioClient(deps, mode);
      const modern = await connect('pin');
      const legacy = await connect('legacy');
      expect(modern.getProtocolEra()).toBe('modern');
      expect(legacy.getProtocolEra()).toBe('legacy');
      // server/discover answers with what initialize answers.
      expect(described(modern)).toEqual(described(legacy));
      expect(described(modern).instructions).toBe('Call speak, then clone.');
      expect(described(modern).server).toMatchObject({ name: 'generations', version: '1.2.3' });

      expect((await modern.listTools()).tools).toEqual((await legacy.listTools()).tools);
      expect((await modern.listResources()).resources).toEqual((await legacy.listResources()).resources);
      const call = { name: 'speak', arguments: { text: 'hello' } };
      const [newer, older] = [await modern.callTool(call), await legacy.callTool(call)];
      expect(withoutServerInfo(newer)).toEqual(withoutServerInfo(older));
      expect(newer.structuredContent).toEqual({ spoken: 'hello' });
    },
  );

  it.each(['stdio', 'http'] as const)(
    "over %s, protocol '2025-11-25' refuses server/discover: a negotiating client falls back, a pinned one cannot connect",
    async (transport) => {
      const deps = { runs: [] as string[] };
      let url = '';
      if (transport === 'http') {
        const handle = await runHttpServer(factory(deps), { port: 0, protocol: '2025-11-25' });
        handles.push(handle);
        url = handle.url;
      }
      const connect = (mode: 'pin' | 'auto') =>
        transport === 'http' ? httpClient(url, mode) : stdioClient(deps, mode, { protocol: '2025-11-25' });
      const negotiating = await connect('auto');
      expect(negotiating.getProtocolEra()).toBe('legacy');
      expect((await negotiating.callTool({ name: 'speak', arguments: { text: 'hi' } })).isError).toBeFalsy();
      await expect(connect('pin')).rejects.toThrow();
    },
  );

  it("over HTTP, protocol '2025-11-25' answers a 2026-07-28 request with 'unsupported protocol version' and the version it serves", async () => {
    const handle = await runHttpServer(factory({ runs: [] }), { port: 0, protocol: '2025-11-25' });
    handles.push(handle);
    const sent: { body: string; headers: Record<string, string> }[] = [];
    // The discover request exactly as the SDK's client sends it.
    const client = new Client(
      { name: 'recorder', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client
      .connect(
        new StreamableHTTPClientTransport(new URL(handle.url), {
          fetch: async (url, init) => {
            const headers: Record<string, string> = {};
            new Headers(init?.headers).forEach((value, name) => {
              headers[name] = value;
            });
            sent.push({ body: String(init?.body), headers });
            return fetch(url, init);
          },
        }),
      )
      .catch(() => undefined);
    const discover = sent.find((request) => request.body.includes('server/discover'));
    expect(discover).toBeDefined();
    const response = await rawRequest(handle.url, discover?.headers ?? {}, discover?.body ?? '');
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({
      error: { code: -32022, data: { supported: ['2025-11-25'] } },
    });
    // The older generation is served as before.
    const initialized = await rawRequest(
      handle.url,
      { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      INITIALIZE,
    );
    expect(initialized.status).toBe(200);
  });

  it('with sessions, a 2025-11-25 client gets a session and a 2026-07-28 client is served per request beside it', async () => {
    const handle = await runHttpServer(factory({ runs: [] }), { port: 0, sessions: true });
    handles.push(handle);
    const legacy = await httpClient(handle.url, 'legacy');
    expect(handle.sessions()).toBe(1);
    const modern = await httpClient(handle.url, 'pin');
    expect(modern.getProtocolEra()).toBe('modern');
    const result = await modern.callTool({ name: 'speak', arguments: { text: 'beside' } });
    expect(result.structuredContent).toEqual({ spoken: 'beside' });
    expect((await legacy.callTool({ name: 'speak', arguments: { text: 'in session' } })).isError).toBeFalsy();
    expect(handle.sessions()).toBe(1);
  });
});

describe('views, per request', () => {
  it('over stateless HTTP (views auto), a 2026-07-28 client that declares the extension is offered the views; every other client gets the answers it got before views existed', async () => {
    const handle = await runHttpServer(factory({ runs: [] }), { port: 0 });
    handles.push(handle);
    const renders = await httpClient(handle.url, 'pin', RENDERS_VIEWS);
    const plain = await httpClient(handle.url, 'pin');
    const legacy = await httpClient(handle.url, 'legacy', RENDERS_VIEWS);

    const listed = (await renders.listTools()).tools;
    expect(listed.map((tool) => [tool.name, tool._meta?.ui])).toEqual([
      ['speak', { resourceUri: 'ui://polymodal/player.html' }],
      ['spoken_page', { visibility: ['app'] }],
      ['clone', undefined],
    ]);
    expect((await renders.listResources()).resources.map((resource) => resource.uri)).toContain(
      'ui://polymodal/player.html',
    );
    const view = await renders.readResource({ uri: 'ui://polymodal/player.html' });
    expect(view.contents[0]).toMatchObject({ mimeType: 'text/html;profile=mcp-app' });
    expect((await renders.callTool({ name: 'spoken_page', arguments: { page: 2 } })).content).toEqual([
      { type: 'text', text: 'page 2' },
    ]);

    // The same client without the extension, and a 2025-11-25 client over stateless HTTP (whose requests carry
    // no capabilities): the answers of a server without views, text for text.
    const answers = async (client: Client) => ({
      tools: (await client.listTools()).tools,
      resources: (await client.listResources()).resources,
      call: withoutServerInfo(await client.callTool({ name: 'speak', arguments: { text: 'x' } })),
    });
    const withoutViews = factory({ runs: [] }, 'off');
    const bare = await runHttpServer(withoutViews, { port: 0 });
    handles.push(bare);
    const reference = await answers(await httpClient(bare.url, 'pin'));
    expect(await answers(plain)).toEqual(reference);
    expect(await answers(legacy)).toEqual(reference);
    for (const client of [plain, legacy]) {
      await expect(client.readResource({ uri: 'ui://polymodal/player.html' })).rejects.toThrow(/not found/);
      const refused = await client.callTool({ name: 'spoken_page', arguments: { page: 1 } });
      expect(refused).toMatchObject({ isError: true, content: [{ text: 'Tool spoken_page not found' }] });
    }
  });
});

describe('questions', () => {
  const answerWith = (client: Client, content: Record<string, string | boolean>) =>
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept' as const, content }));

  it.each(['stdio', 'http'] as const)(
    'over %s, a 2026-07-28 client is asked through an input-required result and the tool runs again with the answer',
    async (transport) => {
      const deps = { runs: [] as string[] };
      let client: Client;
      if (transport === 'http') {
        const handle = await runHttpServer(factory(deps), { port: 0 });
        handles.push(handle);
        client = await httpClient(handle.url, 'pin', { elicitation: {} });
      } else {
        client = await stdioClient(deps, 'pin', { capabilities: { elicitation: {} } });
      }
      answerWith(client, { agree: true });
      const result = await client.callTool({ name: 'clone', arguments: { name: 'Ann' } });
      expect(result.content).toEqual([{ type: 'text', text: 'cloned Ann' }]);
      // The first run stopped at the question; the second found the answer.
      expect(deps.runs).toEqual(['run Ann', 'run Ann', 'answered accept']);
    },
  );

  it('over stdio, a 2025-11-25 client is asked for real, and an answer of the wrong type is refused', async () => {
    const deps = { runs: [] as string[] };
    const client = await stdioClient(deps, 'legacy', { capabilities: { elicitation: {} } });
    answerWith(client, { agree: 'yes' });
    const refused = await client.callTool({ name: 'clone', arguments: { name: 'Bo' } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toMatch(/does not match requested schema/);
    answerWith(client, { agree: true });
    const agreed = await client.callTool({ name: 'clone', arguments: { name: 'Bo' } });
    expect(agreed.content).toEqual([{ type: 'text', text: 'cloned Bo' }]);
  });

  it('a client that cannot be asked is not: one without elicitation, and 2025-11-25 over stateless HTTP', async () => {
    const deps = { runs: [] as string[] };
    const handle = await runHttpServer(factory(deps), { port: 0 });
    handles.push(handle);
    const withoutElicitation = await httpClient(handle.url, 'pin');
    const statelessLegacy = await httpClient(handle.url, 'legacy', { elicitation: {} });
    answerWith(statelessLegacy, { agree: true });
    for (const client of [withoutElicitation, statelessLegacy]) {
      const result = await client.callTool({ name: 'clone', arguments: { name: 'Cy' } });
      expect(result.content).toEqual([{ type: 'text', text: 'not asked' }]);
    }
    expect(deps.runs).toEqual(['run Cy', 'run Cy']);
  });
});

describe('roots', () => {
  const READ = defineTool({
    name: 'read',
    title: 'Read',
    description: 'Reads a file the client allows.',
    inputSchema: { file: z.string() },
    annotations: { readOnlyHint: true },
    handler: (deps: { roots: RootsSync; files: FileAccess }) => async (args) => {
      await deps.roots.ready();
      try {
        return {
          content: [
            { type: 'text', text: `read ${path.basename(await deps.files.resolveReadable(args.file))}` },
          ],
        };
      } catch (error) {
        return { content: [{ type: 'text', text: String(error) }], isError: true };
      }
    },
  });

  /** A server whose only readable directories are the client's roots: its own (stdio) or per request (HTTP). */
  function readingServer(shared: FileAccess | undefined) {
    return (): ServerInstance => {
      // The roots follow the server, and the tool reads through them: so the server comes first.
      const server = createSdkServer({ name: 'roots', title: 'Roots', version: '1', instructions: '' });
      const files = shared ?? createFileAccess({ allowedDirs: [], outputDir: OUTPUTS });
      const roots = shared ? syncSessionRoots(server, files) : syncRoots(server, files);
      installTools(server, {
        server: { name: 'roots', version: '1' },
        groups: [toolGroup({ tools: [READ], deps: () => ({ roots, files }) })],
        common: { toolDeadlineSeconds: 50 } as ToolDeps,
        ...(roots.within ? { within: roots.within } : {}),
        keep: () => true,
        metrics: { toolCall: () => undefined },
        loadPlatformClient: () => Promise.resolve(),
        files,
        log: { warning: () => undefined },
      });
      return { server, cleanup: () => Promise.resolve() };
    };
  }

  /** A 2026-07-28 client whose roots are the outputs directory, counting how often it is asked for them. */
  function rootsOf(client: Client): { asked: number } {
    const counted = { asked: 0 };
    client.setRequestHandler('roots/list', async () => {
      counted.asked += 1;
      return { roots: [{ uri: pathToFileURL(OUTPUTS).href, name: 'outputs' }] };
    });
    return counted;
  }

  it('over stdio, a 2026-07-28 client is asked for its roots within the first call that reads files, and once', async () => {
    await writeFile(path.join(OUTPUTS, 'notes.txt'), 'notes');
    const { stdin, stdout, client: transport } = streamPair();
    await runStdioServer(readingServer(undefined), { stdin, stdout, exit: () => {}, writeError: () => {} });
    stdioServers.push(async () => {
      stdin.end();
    });
    const client = track(modernClient('roots-test', { roots: {} }));
    const roots = rootsOf(client);
    await client.connect(transport);
    const file = path.join(OUTPUTS, 'notes.txt');
    expect((await client.callTool({ name: 'read', arguments: { file } })).content).toEqual([
      { type: 'text', text: 'read notes.txt' },
    ]);
    expect((await client.callTool({ name: 'read', arguments: { file } })).isError).toBeFalsy();
    expect(roots.asked).toBe(1);
  });

  it('over HTTP on loopback, each call of a 2026-07-28 client that declares roots reads within them; one that does not, within the configured directories only', async () => {
    await writeFile(path.join(OUTPUTS, 'notes.txt'), 'notes');
    const shared = createFileAccess({ allowedDirs: [], outputDir: OUTPUTS });
    const handle = await runHttpServer(readingServer(shared), { port: 0 });
    handles.push(handle);
    const file = path.join(OUTPUTS, 'notes.txt');

    const declaring = track(modernClient('roots-test', { roots: {} }));
    const roots = rootsOf(declaring);
    await declaring.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
    for (let call = 0; call < 2; call += 1) {
      expect((await declaring.callTool({ name: 'read', arguments: { file } })).content).toEqual([
        { type: 'text', text: 'read notes.txt' },
      ]);
    }
    // Each request has a server of its own, which asks.
    expect(roots.asked).toBe(2);

    const plain = await httpClient(handle.url, 'pin');
    const refused = await plain.callTool({ name: 'read', arguments: { file } });
    expect(refused.isError).toBe(true);
  });
});

describe('log messages to the client', () => {
  it.each([
    ['2025-11-25', 'legacy', 1],
    ['2026-07-28', 'pin', 0],
  ] as const)(
    'over stdio, a %s client (%s) is sent %i log message(s) written outside its requests',
    async (_generation, mode, count) => {
      const { stdin, stdout, client: transport } = streamPair();
      const log = createLogger({ name: 'logs', write: () => {} });
      const build = factory({ runs: [] });
      await runStdioServer(
        () => {
          const instance = build();
          log.attach(instance.server);
          return instance;
        },
        { stdin, stdout, exit: () => {}, writeError: () => {} },
      );
      stdioServers.push(async () => {
        stdin.end();
      });
      const client = track(clientFor(mode, {}));
      const received: unknown[] = [];
      client.setNotificationHandler('notifications/message', (notification) => {
        received.push(notification.params);
      });
      await client.connect(transport);
      log.info('a record of the server');
      // A call after the record: its answer comes after anything the record sent.
      await client.callTool({ name: 'speak', arguments: { text: 'after' } });
      expect(received).toHaveLength(count);
    },
  );
});
