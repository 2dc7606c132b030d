/**
 * Paid work exactly once across processes: several built servers (stdio, as hosts spawn them) sharing
 * one POLYMODAL_STATE_DIR, and servers killed with SIGKILL at the worst moments then started again. The
 * sandbox's counters and request log say what was paid for.
 */
import { access, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { type Sandbox, startSandbox, writeMeetingRecording } from '@polymodal/sandbox';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SHORT_SCRIPT } from './support/harness.js';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'index.js');
const API = '/api/conference-summary/v1';

let sandbox: Sandbox;
let root: string;
let stateDir: string;
const servers: Server[] = [];

interface Server {
  summarize(file: string, waitSeconds: number): Promise<Record<string, unknown>>;
  /** SIGKILL, resolved once the process is gone (as a host restarts a server after it died). */
  kill(): Promise<void>;
  close(): Promise<void>;
}

async function spawnServer(): Promise<Server> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN],
    env: {
      PATH: process.env.PATH ?? '',
      POLYMODAL_BASE_URL: sandbox.url,
      POLYMODAL_API_KEY: sandbox.apiKey,
      POLYMODAL_STATE_DIR: stateDir,
      POLYMODAL_ALLOWED_DIRS: path.join(root, 'media'),
      POLYMODAL_OUTPUT_DIR: path.join(root, 'out'),
      POLYMODAL_POLL_INTERVAL_MS: '50',
      POLYMODAL_LOG_LEVEL: 'error',
    },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'processes-test', version: '1.0.0' });
  let exited: () => void = () => undefined;
  const gone = new Promise<void>((resolve) => {
    exited = resolve;
  });
  client.onclose = () => exited();
  await client.connect(transport);
  const server: Server = {
    async summarize(file, waitSeconds) {
      const result = (await client.callTool(
        { name: 'summarize_meeting', arguments: { path: file, waitSeconds } },
        { timeout: 60_000 },
      )) as CallToolResult;
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      return result.structuredContent as Record<string, unknown>;
    },
    async kill() {
      if (transport.pid) process.kill(transport.pid, 'SIGKILL');
      await gone;
    },
    close: () => client.close().catch(() => undefined),
  };
  servers.push(server);
  return server;
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

function counted() {
  const counters = sandbox.control.counters();
  const user = Object.keys(counters.uploads)[0] ?? '';
  return { uploads: counters.uploads[user] ?? 0, jobs: counters.jobsCreated[user] ?? 0 };
}

beforeAll(async () => {
  await access(BIN).catch(() => {
    throw new Error(`${BIN} is missing: build the package first (pnpm build)`);
  });
  root = await mkdtemp(path.join(os.tmpdir(), 'mcp-meeting-processes-'));
  await mkdir(path.join(root, 'media'), { recursive: true });
});

beforeEach(async () => {
  // A sandbox per test: a request a killed server left delayed in one test must not be counted in the
  // next. Held: jobs stay where they are, so "still running" holds however slow the machine is.
  sandbox = await startSandbox({ speed: 100, clock: 'held' });
  stateDir = await mkdtemp(path.join(root, 'state-'));
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await sandbox?.close();
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

async function recording(name: string): Promise<string> {
  const file = path.join(root, 'media', name);
  await writeMeetingRecording(file, { script: SHORT_SCRIPT });
  return file;
}

describe('several server processes sharing one state directory', () => {
  it('20 identical calls spread over 4 processes: 1 upload, 1 job, the same job for every call', async () => {
    const file = await recording('shared.wav');
    const processes = await Promise.all(Array.from({ length: 4 }, () => spawnServer()));
    const answers = await Promise.all(
      processes.flatMap((server) => Array.from({ length: 5 }, () => server.summarize(file, 0))),
    );
    expect(new Set(answers.map((answer) => answer.jobId)).size).toBe(1);
    expect(answers[0]?.jobId).toEqual(expect.stringMatching(/.+/));
    expect(counted()).toEqual({ uploads: 1, jobs: 1 });
    await Promise.all(processes.map((server) => server.close()));
  });
});

describe('a server killed with SIGKILL, then the same call on a new one', () => {
  it('killed during the upload: the new server answers with one job', async () => {
    const file = await recording('killed-upload.wav');
    sandbox.control.setFaults([
      { match: { method: 'POST', path: `${API}/uploads$` }, kind: 'latency', latencyMs: 5_000, count: 1 },
    ]);
    const doomed = await spawnServer();
    void doomed.summarize(file, 0).catch(() => undefined);
    await until(() => sandbox.control.requests({ method: 'POST', path: `${API}/uploads$` }).length === 1);
    await doomed.kill();
    const fresh = await spawnServer();
    const answer = await fresh.summarize(file, 0);
    expect(answer.jobId).toEqual(expect.stringMatching(/.+/));
    expect(counted().jobs).toBe(1);
    await fresh.close();
  });

  it('killed while the job was being created: the recorded receipt gives the same single job', async () => {
    const file = await recording('killed-create.wav');
    sandbox.control.setFaults([
      { match: { method: 'POST', path: `${API}/jobs$` }, kind: 'latency', latencyMs: 2_000, count: 1 },
    ]);
    const doomed = await spawnServer();
    void doomed.summarize(file, 0).catch(() => undefined);
    await until(() => sandbox.control.requests({ method: 'POST', path: `${API}/jobs$` }).length === 1);
    await doomed.kill();
    const fresh = await spawnServer();
    const answer = await fresh.summarize(file, 0);
    expect(answer.jobId).toEqual(expect.stringMatching(/.+/));
    // Wait out the delayed first request: it must find the job the receipt already made.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(counted()).toEqual({ uploads: 1, jobs: 1 });
    await fresh.close();
  });

  it('killed while waiting on the job: the new server resumes it, nothing is paid again', async () => {
    const file = await recording('killed-wait.wav');
    const doomed = await spawnServer();
    void doomed.summarize(file, 30).catch(() => undefined);
    await until(() => sandbox.control.requests({ method: 'GET', path: `${API}/jobs/[^/]+$` }).length >= 1);
    await doomed.kill();
    const fresh = await spawnServer();
    const answer = await fresh.summarize(file, 0);
    expect(answer).toMatchObject({ resumed: true, done: false });
    expect(counted()).toEqual({ uploads: 1, jobs: 1 });
    await fresh.close();
  });
});
