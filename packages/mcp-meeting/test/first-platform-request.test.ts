/**
 * What the bin's first platform request costs (issue 14).
 *
 * It must not load undici's HTTP/2 client and `node:http2`: core never allows HTTP/2, and the bundle loads
 * that client with the first connection that negotiates it (scripts/tsup-server-package.mjs). The bin runs
 * over stdio with a preload that writes the built-in modules it loaded when it exits.
 *
 * Its first requests must not make V8 compile the HTTP parser with its optimizing compiler. undici parses
 * responses with llhttp, WebAssembly; with V8's default budget TurboFan compiled it after the first response
 * (Node 20) or the second (Node 22, 24), 46–139 ms of CPU and a compiler zone of up to 29 MB, and the bins
 * raise the budget so that a session's responses stay on the baseline compiler (mcp-common's
 * raiseWasmTieringBudget).
 *
 * Two bins make the same three calls against one sandbox, both with V8's `--trace-wasm-compilation-times`,
 * which prints a line per WebAssembly function compiled, on stdout: so they serve Streamable HTTP, where
 * stdout is not the protocol channel. The control runs with Node 20's default budget set on its command
 * line (which the bins keep), so it compiles the parser with TurboFan on every Node version: the test waits
 * for that line, which shows the calls reach the parser. The bin as users run it must print no such line,
 * in the same time and then as long again.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { type Sandbox, startSandbox } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.resolve(here, '..', 'dist', 'index.js');
const RECORD_BUILTINS = path.join(here, 'support', 'record-builtins-on-exit.mjs');
/** Node 20's default (V8 11.3), given on the command line of the control. */
const NODE_20_BUDGET = '--wasm-tiering-budget=1800000';
const TURBOFAN = /using TurboFan/;

interface Started {
  child: ChildProcess;
  client: Client;
  /** What V8 printed. */
  stdout: () => string;
}

describe('the first platform request of a bin', () => {
  let sandbox: Sandbox;
  let root: string;
  const started: Started[] = [];

  /** A bin's environment: this sandbox, a state directory of its own. */
  async function binEnv(extra: Record<string, string> = {}): Promise<Record<string, string>> {
    return {
      PATH: process.env.PATH ?? '',
      POLYMODAL_BASE_URL: sandbox.url,
      POLYMODAL_API_KEY: sandbox.apiKey,
      POLYMODAL_STATE_DIR: await mkdtemp(path.join(root, 'state-')),
      POLYMODAL_ALLOWED_DIRS: root,
      ...extra,
    };
  }

  async function start(v8Flags: string[]): Promise<Started> {
    const child = spawn(
      process.execPath,
      ['--trace-wasm-compilation-times', ...v8Flags, BIN, '--http', '--port', '0'],
      { env: await binEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    const one: Started = {
      child,
      client: new Client({ name: 'first-request-test', version: '1.0.0' }),
      stdout: () => stdout,
    };
    started.push(one);
    const endpoint = await new Promise<string>((resolve, reject) => {
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
        const url = /MCP Streamable HTTP endpoint at (http:\/\/\S+\/mcp)/.exec(stderr)?.[1];
        if (url) resolve(url);
      });
      child.once('exit', (code) => reject(new Error(`the bin exited ${code} before serving: ${stderr}`)));
    });
    await one.client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
    return one;
  }

  /**
   * One call that sends a request and parses the answer (the platform's 404 for an unknown job). Each call
   * names another job: a job read again waits out the platform's polling interval.
   */
  async function readUnknownJob(client: Client, call: number): Promise<string> {
    const result = await client.callTool({
      name: 'get_meeting',
      arguments: { jobId: `mtg_${String(call).padStart(20, '0')}` },
    });
    expect(result.isError).toBe(true);
    return JSON.stringify(result.content).replaceAll(String(call).padStart(20, '0'), '…');
  }

  beforeAll(async () => {
    await access(BIN).catch(() => {
      throw new Error(
        `${BIN} is missing: build the package first (pnpm turbo run build --filter=@polymodal/mcp-meeting...)`,
      );
    });
    sandbox = await startSandbox();
    root = await mkdtemp(path.join(os.tmpdir(), 'mcp-meeting-first-request-'));
  });

  afterAll(async () => {
    for (const { client, child } of started) {
      await client.close();
      child.kill('SIGTERM');
    }
    await sandbox?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('loads no HTTP/2 code', async () => {
    const record = path.join(root, 'builtins.txt');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', RECORD_BUILTINS, BIN],
      env: await binEnv({ POLYMODAL_TEST_BUILTINS: record }),
      stderr: 'ignore',
    });
    const client = new Client({ name: 'first-request-test', version: '1.0.0' });
    await client.connect(transport);
    const requestsBefore = sandbox.control.requests().length;
    await readUnknownJob(client, 0);
    expect(sandbox.control.requests().length - requestsBefore).toBe(1);
    const exited = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
    });
    await client.close();
    await exited;
    const builtins = (await readFile(record, 'utf8')).split('\n');
    // The request went out over a socket; nothing of HTTP/2 came with it.
    expect(builtins).toContain('net');
    expect(builtins.filter((name) => /http2/.test(name))).toEqual([]);
  });

  it('leaves the HTTP parser to the baseline compiler', { timeout: 60_000 }, async () => {
    const [control, bin] = await Promise.all([start([NODE_20_BUDGET]), start([])]);
    const requestsBefore = sandbox.control.requests().length;
    const began = Date.now();
    for (let calls = 0; calls < 3; calls++) {
      const answers = await Promise.all([
        readUnknownJob(control.client, calls),
        readUnknownJob(bin.client, calls),
      ]);
      expect(answers[0]).toBe(answers[1]);
    }
    // Every call reached the platform and was refused by it, not by the server.
    expect(sandbox.control.requests().length - requestsBefore).toBe(6);

    while (!TURBOFAN.test(control.stdout())) {
      if (Date.now() - began > 30_000) {
        throw new Error(`the control printed no TurboFan compile in 30 s:\n${control.stdout().slice(-3000)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const controlMs = Date.now() - began;
    await new Promise((resolve) => setTimeout(resolve, controlMs));
    expect(bin.stdout()).not.toMatch(TURBOFAN);
  });
});
