/**
 * A speech synthesis outlives its server: the built media bin over stdio (as a host spawns it) hands back
 * a handle for a long text, is killed with SIGKILL, and a new bin on the same state directory answers
 * get_speech with that handle — the joined WAV, every part's task created once at the sandbox (the parts
 * the first bin had sent are resumed, the ones it had not are sent by the second). The sandbox clock is
 * held while the first bin runs, so "still running" is not a race.
 */
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { serverEnv, speechSeenBySandbox, textOfParts } from '@polymodal/mcp-common/testing';
import { type Sandbox, startSandbox } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'index.js');
/** The key's concurrentSessions: fewer than the parts, so that some are not sent before the kill. */
const KEY_LIMIT = 3;
const PARTS = 5;

let sandbox: Sandbox;
let root: string;
const clients: Client[] = [];

interface Bin {
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  /** SIGKILL, resolved once the process is gone. */
  kill(): Promise<void>;
}

async function spawnBin(): Promise<Bin> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN],
    env: {
      PATH: process.env.PATH ?? '',
      ...serverEnv(root, sandbox),
      POLYMODAL_TTS_CONCURRENT_SESSIONS: String(KEY_LIMIT),
    },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'speech-restart-test', version: '1.0.0' });
  let exited: () => void = () => undefined;
  const gone = new Promise<void>((resolve) => {
    exited = resolve;
  });
  client.onclose = () => exited();
  await client.connect(transport);
  clients.push(client);
  return {
    call: async (name, args) =>
      (await client.callTool({ name, arguments: args }, { timeout: 60_000 })) as CallToolResult,
    async kill() {
      if (transport.pid) process.kill(transport.pid, 'SIGKILL');
      await gone;
    },
  };
}

beforeAll(async () => {
  await access(BIN).catch(() => {
    throw new Error(`${BIN} is missing: build the package first (pnpm build)`);
  });
  sandbox = await startSandbox({
    speed: 100,
    config: { media: { speechSynthesis: { concurrentSessions: KEY_LIMIT } } },
  });
  root = await mkdtemp(path.join(os.tmpdir(), 'mcp-media-speech-restart-'));
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  await sandbox?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('a speech synthesis across a server restart (built bin, stdio)', () => {
  it('get_speech with the handle from before the kill returns the WAV; each part is created once', async () => {
    const user = sandbox.users[0]!.id;
    const text = textOfParts(PARTS, 'restart');
    sandbox.control.holdClock();
    const first = await spawnBin();
    const started = await first.call('synthesize_speech', { text, waitSeconds: 1 });
    expect(started.isError, JSON.stringify(started.content)).toBeFalsy();
    const handle = started.structuredContent as { done: boolean; jobId: string; next?: string };
    expect(handle.done).toBe(false);
    expect(handle.next).toMatch(/get_speech/);
    // The key's 3 slots are taken by 3 parts (held unfinished); 2 wait for a slot. A part's task id is
    // recorded before its first read, so once each of the 3 was read, all 3 are in the ledger.
    await vi.waitFor(
      () => {
        const seen = speechSeenBySandbox(sandbox, user);
        expect(seen.created).toBe(KEY_LIMIT);
        expect(new Set(seen.reads.map((read) => read.path)).size).toBe(KEY_LIMIT);
      },
      { timeout: 30_000, interval: 50 },
    );
    await first.kill();
    sandbox.control.releaseClock();

    const second = await spawnBin();
    // As a client follows a handle: get_speech until done (one call is enough unless the machine is slow).
    let result: CallToolResult | undefined;
    for (
      let calls = 0;
      calls < 4 && !(result?.structuredContent as { done?: boolean } | undefined)?.done;
      calls += 1
    ) {
      result = await second.call('get_speech', { jobId: handle.jobId, waitSeconds: 45 });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    }
    const done = result!.structuredContent as {
      done: boolean;
      outcome: string;
      jobId: string;
      savedPath: string;
      parts: { taskId: string; resumed: boolean }[];
    };
    expect([done.done, done.outcome, done.jobId]).toEqual([true, 'succeeded', handle.jobId]);
    expect((await readFile(done.savedPath)).subarray(8, 12).toString('latin1')).toBe('WAVE');
    expect(done.parts).toHaveLength(PARTS);
    expect(done.parts.filter((part) => part.resumed)).toHaveLength(KEY_LIMIT);
    // Each part's task was created exactly once: 5 parts, 5 tasks, 5 distinct task ids.
    expect(speechSeenBySandbox(sandbox, user).created).toBe(PARTS);
    expect(new Set(done.parts.map((part) => part.taskId)).size).toBe(PARTS);

    // list_jobs shows the synthesis as one job, its parts beneath it.
    const listed = await second.call('list_jobs', {});
    const jobs = (
      listed.structuredContent as { jobs: { service: string; jobId: string; parts?: unknown[] }[] }
    ).jobs;
    expect(jobs.map((job) => [job.service, job.jobId])).toEqual([['speech-text', handle.jobId]]);
    expect(jobs[0]!.parts).toEqual(done.parts.map((part) => ({ jobId: part.taskId, status: 'SUCCESS' })));
  }, 240_000);
});
