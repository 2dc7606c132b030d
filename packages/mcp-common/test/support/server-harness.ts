/**
 * Test support shared by the server packages' tests: an SDK client connected to a server instance over
 * InMemoryTransport whose every result is checked for secrets, and the harness of a server started against
 * a sandbox on loopback with temporary state, allowed and output directories.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult, JSONRPCMessage, RequestOptions } from '@modelcontextprotocol/server';
import { createMcpHandler, InMemoryTransport } from '@modelcontextprotocol/server';
import { type Sandbox, type SandboxConfig, type SandboxOptions, startSandbox } from '@polymodal/sandbox';
import { afterAll, beforeAll, expect } from 'vitest';
import { createPlatformContext, type PlatformContext, type ServerInstance } from '../../src/host.js';

export interface ToolResult {
  isError: boolean;
  /** The text items, joined by newlines. */
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever structured fields a tool returns.
  structured: Record<string, any>;
  content: CallToolResult['content'];
  raw: CallToolResult;
}

export interface Connection {
  client: Client;
  call(name: string, args?: Record<string, unknown>, options?: RequestOptions): Promise<ToolResult>;
  close(): Promise<void>;
}

/** `call` of a connected client: the result read for tests, after checking that no secret appears in it. */
export function toolCaller(client: Client, secrets: readonly string[]): Connection['call'] {
  return async (name, args = {}, requestOptions) => {
    const raw = (await client.callTool({ name, arguments: args }, requestOptions)) as CallToolResult;
    const serialized = JSON.stringify(raw);
    for (const secret of secrets) expect(serialized).not.toContain(secret);
    return {
      isError: raw.isError === true,
      text: raw.content.map((item) => (item.type === 'text' ? item.text : '')).join('\n'),
      structured: raw.structuredContent ?? {},
      content: raw.content,
      raw,
    };
  };
}

/**
 * The MCP protocol generations the servers answer. In-process, a 2025-11-25 client is connected to one server
 * over InMemoryTransport (as over stdio); a 2026-07-28 client to the SDK's per-request handler, which builds a
 * server for every request on one shared context (as over stateless HTTP), without a socket.
 */
export const GENERATIONS = ['2025-11-25', '2026-07-28'] as const;
export type ProtocolGeneration = (typeof GENERATIONS)[number];

/** A client pinned to the 2026-07-28 protocol (no fallback to `initialize`). */
export function modernClient(name = 'test-client', capabilities: Record<string, unknown> = {}): Client {
  return new Client(
    { name, version: '1.0.0' },
    { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
}

/**
 * A 2026-07-28 client on servers built by `create` on one shared context, one server per request, through
 * the SDK's `createMcpHandler` in-process. `close()` closes the client, every server and the context.
 */
export async function connectModernInProcess(
  create: (context: PlatformContext) => ServerInstance,
  options: { env: Record<string, string>; secrets: readonly string[]; name?: string },
): Promise<Connection> {
  const context = createPlatformContext({ env: options.env, name: options.name ?? 'test-server' });
  const live = new Set<ServerInstance>();
  const handler = createMcpHandler(() => {
    const instance = create(context);
    live.add(instance);
    const previous = instance.server.server.onclose;
    instance.server.server.onclose = () => {
      previous?.();
      live.delete(instance);
      void instance.cleanup();
    };
    return instance.server;
  });
  const client = modernClient(options.name);
  await client.connect(
    new StreamableHTTPClientTransport(new URL('http://in-process.test/mcp'), {
      fetch: (url, init) => handler.fetch(new Request(url, init)),
    }),
  );
  return {
    client,
    call: toolCaller(client, options.secrets),
    async close() {
      await client.close();
      await handler.close();
      await Promise.all([...live].map((instance) => instance.cleanup()));
      await context.close();
    },
  };
}

/** A client on `instance`; `close()` closes both. No secret may appear in any result, whatever the outcome. */
export async function connectInMemory(
  instance: ServerInstance,
  options: { secrets: readonly string[]; name?: string },
): Promise<Connection> {
  const client = new Client({ name: options.name ?? 'test-client', version: '1.0.0' });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await instance.server.connect(serverTransport);
  await client.connect(clientTransport);
  return {
    client,
    call: toolCaller(client, options.secrets),
    async close() {
      await client.close();
      await instance.cleanup();
    },
  };
}

/**
 * A client of `generation` on a server package's factory, in-process: a 2025-11-25 client on one server over
 * InMemoryTransport (as over stdio), a 2026-07-28 one on a server per request on one shared context (as over
 * stateless HTTP, see `connectModernInProcess`).
 */
export function connectInProcess(
  generation: ProtocolGeneration,
  createServer: ServerHarnessOptions['createServer'],
  options: { env: Record<string, string>; secrets: readonly string[] },
): Promise<Connection> {
  const { env, secrets } = options;
  return generation === '2026-07-28'
    ? connectModernInProcess((context) => createServer({ env, platform: context }), { env, secrets })
    : connectInMemory(createServer({ env }), { secrets });
}

/**
 * Runs `use` with an SDK client on `instance` over InMemoryTransport and what the server has sent so far
 * (as it sent it: the client's parsing could drop a field), then closes both.
 */
export async function withInMemoryClient<T>(
  instance: ServerInstance,
  use: (client: Client, sent: JSONRPCMessage[]) => Promise<T>,
): Promise<T> {
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const sent: JSONRPCMessage[] = [];
  const send = serverTransport.send.bind(serverTransport);
  serverTransport.send = (message, options) => {
    sent.push(message);
    return send(message, options);
  };
  await instance.server.connect(serverTransport);
  await client.connect(clientTransport);
  try {
    return await use(client, sent);
  } finally {
    await client.close();
    await instance.cleanup();
  }
}

/** A server's variables on `root`: it is the allowed directory, with the state and output directories inside. */
export function serverEnv(
  root: string,
  platform: { url: string; apiKey: string },
  pollIntervalMs?: number,
): Record<string, string> {
  return {
    POLYMODAL_BASE_URL: platform.url,
    POLYMODAL_API_KEY: platform.apiKey,
    POLYMODAL_STATE_DIR: path.join(root, 'state'),
    POLYMODAL_ALLOWED_DIRS: root,
    POLYMODAL_OUTPUT_DIR: path.join(root, 'out'),
    POLYMODAL_LOG_LEVEL: 'error',
    ...(pollIntervalMs === undefined ? {} : { POLYMODAL_POLL_INTERVAL_MS: String(pollIntervalMs) }),
  };
}

export interface ServerEnv {
  root: string;
  env: Record<string, string>;
  /** Present when started with `sandbox: true`. */
  sandbox: Sandbox | undefined;
  close(): Promise<void>;
}

/**
 * A temporary root and the variables of a server on it, against a sandbox or, for tests that only list
 * tools, a closed loopback port (which proves that listing calls nothing).
 */
export async function startServerEnv(options: { name: string; sandbox: boolean }): Promise<ServerEnv> {
  const sandbox = options.sandbox ? await startSandbox({ speed: 100 }) : undefined;
  const root = await mkdtemp(path.join(os.tmpdir(), options.name));
  return {
    root,
    env: serverEnv(root, sandbox ?? { url: 'http://127.0.0.1:9', apiKey: 'pm_test_key' }),
    sandbox,
    async close() {
      await sandbox?.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/**
 * `startServerEnv` for a whole test file: started before its tests, closed after them. The returned `env`
 * is one object, filled in before the first test, so a file can keep it in a constant.
 */
export function useServerEnv(options: { name: string; sandbox: boolean }): {
  env: Record<string, string>;
  /** The file's sandbox, once started (with `sandbox: true`). */
  sandbox(): Sandbox;
} {
  const env: Record<string, string> = {};
  let started: ServerEnv | undefined;
  beforeAll(async () => {
    started = await startServerEnv(options);
    Object.assign(env, started.env);
  });
  afterAll(() => started?.close());
  return {
    env,
    sandbox() {
      if (!started?.sandbox) throw new Error("No sandbox: start the file's environment with sandbox: true");
      return started.sandbox;
    },
  };
}

/** Every key the sandbox knows: none may appear in a result. */
export function sandboxSecrets(sandbox: Sandbox): string[] {
  return [
    sandbox.apiKey,
    sandbox.apiKey2,
    ...Object.values(sandbox.keys).filter((key): key is string => typeof key === 'string'),
  ];
}

export interface ServerHarness extends Connection {
  sandbox: Sandbox;
  /** Temp root; it is also the allowed directory. */
  root: string;
  env: Record<string, string>;
  /** Another server on the same sandbox, with some variables changed (e.g. another key). */
  connect(overrides?: Record<string, string>): Promise<Connection>;
}

export interface ServerHarnessOptions {
  /** The server package's factory (on a shared context for 2026-07-28 clients, see `connectModernInProcess`). */
  createServer(options: { env: Record<string, string>; platform?: PlatformContext }): ServerInstance;
  /**
   * The protocol generation of the harness's clients (default `POLYMODAL_TEST_GENERATION`, else 2025-11-25:
   * `POLYMODAL_TEST_GENERATION=2026-07-28 pnpm vitest run packages/mcp-meeting` runs a package's tool tests on
   * the newer one).
   */
  generation?: ProtocolGeneration;
  /** Prefix of the temporary root's name, e.g. `mcp-media-`. */
  name: string;
  speed?: number;
  /** Reads of a job or task this far apart instead of the service's (honoured on loopback only). */
  pollIntervalMs?: number;
  config?: SandboxConfig;
  /** 'held': the sandbox clock stands still (jobs do not progress) until released or advanced. */
  clock?: SandboxOptions['clock'];
  /** Variables that differ from `serverEnv`'s on this root and sandbox (e.g. another allowed directory). */
  env?(place: { root: string; sandbox: Sandbox }): Record<string, string>;
}

/** A sandbox, a temporary root (allowed directory, state and output inside it) and a first client. */
export async function startServerHarness(options: ServerHarnessOptions): Promise<ServerHarness> {
  const sandbox = await startSandbox({
    speed: options.speed ?? 100,
    ...(options.config ? { config: options.config } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const root = await mkdtemp(path.join(os.tmpdir(), options.name));
  const env = {
    ...serverEnv(root, sandbox, options.pollIntervalMs ?? 20),
    ...options.env?.({ root, sandbox }),
  };
  const secrets = sandboxSecrets(sandbox);
  const generation = options.generation ?? defaultGeneration();
  const connect = (overrides: Record<string, string> = {}) =>
    connectInProcess(generation, options.createServer, { env: { ...env, ...overrides }, secrets });
  const main = await connect();
  return {
    ...main,
    sandbox,
    root,
    env,
    connect,
    async close() {
      await main.close();
      await sandbox.close();
      // Retried: the media server's cleanup does not wait for a speech batch that goes on in the background
      // (parts already sent are followed and recorded), so on a busy machine its last ledger writes can land
      // while the directory is being removed (ENOTEMPTY).
      await rm(root, { recursive: true, force: true, maxRetries: 10 });
    },
  };
}

function defaultGeneration(): ProtocolGeneration {
  const chosen = process.env.POLYMODAL_TEST_GENERATION;
  if (chosen === undefined || chosen === '') return '2025-11-25';
  if (!(GENERATIONS as readonly string[]).includes(chosen)) {
    throw new Error(`POLYMODAL_TEST_GENERATION must be one of ${GENERATIONS.join(', ')}, got ${chosen}`);
  }
  return chosen as ProtocolGeneration;
}

/** A sandbox and a temporary root holding `media/` (an allowed directory to be), both gone after `close()`. */
export async function startSandboxAndRoot(
  name: string,
  options: SandboxOptions,
): Promise<{ sandbox: Sandbox; root: string; mediaDir: string; close(): Promise<void> }> {
  const sandbox = await startSandbox(options);
  const root = await mkdtemp(path.join(os.tmpdir(), name));
  const mediaDir = path.join(root, 'media');
  await mkdir(mediaDir, { recursive: true });
  return {
    sandbox,
    root,
    mediaDir,
    async close() {
      await sandbox.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/**
 * Clients of tenants of a server over Streamable HTTP, one per bearer token, each a tool caller that checks
 * its results for `secrets`; `close()` closes them all. `generation` is the protocol the clients speak
 * (default 2025-11-25, the SDK client's default).
 */
export function tenantClients(
  url: string,
  secrets: readonly string[],
  generation: ProtocolGeneration = '2025-11-25',
): {
  connect(token: string): Promise<Connection['call']>;
  /** The SDK client of a tenant, for what is not a tool call (prompts, completion). */
  client(token: string, generation?: ProtocolGeneration): Promise<Client>;
  close(): Promise<void>;
} {
  const clients: Client[] = [];
  const client = async (token: string, as: ProtocolGeneration = generation) => {
    const connected =
      as === '2026-07-28'
        ? modernClient('tenant-client')
        : new Client({ name: 'tenant-client', version: '1' });
    await connected.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(connected);
    return connected;
  };
  return {
    async connect(token) {
      return toolCaller(await client(token), secrets);
    },
    client,
    async close() {
      await Promise.allSettled(clients.map((client) => client.close()));
    },
  };
}
