/**
 * Both protocol generations on the combined server (every tool of every server), in-process, over stdio and
 * over Streamable HTTP (the built bin): a client pinned to 2026-07-28 and a 2025-11-25 client each list every
 * tool and call every one against the sandbox, and each call reads alike on both (the same outcome and, on
 * one transport, the same structured fields). Each generation gets a server and a state directory of its own,
 * so that both run the same flow from nothing rather than the second resuming what the first paid for.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { access, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  type Connection,
  connectInMemory,
  connectModernInProcess,
  GENERATIONS,
  modernClient,
  type ProtocolGeneration,
  sandboxSecrets,
  serverEnv,
  toolCaller,
} from '@polymodal/mcp-common/testing';
import { type Sandbox, startSandbox } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../src/server.js';
import { type CallSummary, callEveryTool, writeEveryToolInputs } from './support/every-tool.js';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'index.js');
const TRANSPORTS = ['in-process', 'stdio', 'http'] as const;
type Transport = (typeof TRANSPORTS)[number];

let sandbox: Sandbox;
let root: string;

beforeAll(async () => {
  await access(BIN).catch(() => {
    throw new Error(`${BIN} is missing: build first (pnpm build).`);
  });
  sandbox = await startSandbox({ speed: 100 });
  root = await mkdtemp(path.join(os.tmpdir(), 'mcp-generations-'));
  await writeEveryToolInputs(root);
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
  if (root) await rm(root, { recursive: true, force: true, maxRetries: 10 });
});

describe.each(TRANSPORTS)('the combined server, %s', (transport) => {
  const summaries = new Map<ProtocolGeneration, CallSummary[]>();

  it.each(GENERATIONS)(
    'a %s client lists every tool and calls every one',
    async (generation) => {
      const server = await start(transport, generation);
      try {
        if (transport !== 'in-process') {
          expect(server.client.getProtocolEra()).toBe(generation === '2026-07-28' ? 'modern' : 'legacy');
        }
        summaries.set(generation, await callEveryTool(server, root, sandbox.control));
      } finally {
        await server.close();
      }
    },
    180_000,
  );

  it('answers every call alike on both generations', () => {
    const [older, newer] = GENERATIONS.map((generation) => summaries.get(generation));
    expect(older).toBeDefined();
    // In-process, the 2026-07-28 client is served as over HTTP (outputs linked as resources, not paths) and
    // the 2025-11-25 one as over stdio: there the outcomes are compared, not the fields.
    const compared = (calls: CallSummary[] | undefined) =>
      transport === 'in-process' ? calls?.map(({ tool, isError }) => ({ tool, isError })) : calls;
    expect(compared(newer)).toEqual(compared(older));
  });
});

/** A server for one generation, with a state and output directory of its own, and its client. */
async function start(transport: Transport, generation: ProtocolGeneration): Promise<Connection> {
  const own = await mkdtemp(path.join(root, `${transport}-${generation}-`));
  const env = {
    ...serverEnv(own, sandbox, 20),
    POLYMODAL_ALLOWED_DIRS: root,
    POLYMODAL_TOOL_DEADLINE_SECONDS: '50',
  };
  const secrets = sandboxSecrets(sandbox);
  if (transport === 'in-process') {
    return generation === '2026-07-28'
      ? connectModernInProcess((context) => createServer({ env, platform: context }), { env, secrets })
      : connectInMemory(createServer({ env }), { secrets });
  }
  const client =
    generation === '2026-07-28'
      ? modernClient('generations')
      : new Client({ name: 'generations', version: '1' });
  let child: ChildProcess | undefined;
  if (transport === 'stdio') {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN],
        env: { PATH: process.env.PATH ?? '', ...env },
        stderr: 'ignore',
      }),
    );
  } else {
    const started = await startHttpBin(env);
    child = started.child;
    await client.connect(new StreamableHTTPClientTransport(new URL(started.url)));
  }
  return {
    client,
    call: toolCaller(client, secrets),
    async close() {
      await client.close();
      if (child) await stop(child);
    },
  };
}

/** `polymodal-mcp --http --port 0`, once it has said where it listens. */
async function startHttpBin(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, '--http', '--port', '0'], {
    env: { PATH: process.env.PATH ?? '', ...env, POLYMODAL_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const found = /endpoint at (http:\/\/\S+\/mcp)/.exec(stderr)?.[1];
      if (found) resolve(found);
    });
    child.once('exit', () => reject(new Error(`the bin exited before listening; stderr:\n${stderr}`)));
  });
  return { child, url };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
