/**
 * A meeting as a task over stdio, as Claude Code runs the built bin on 2026-07-28: `server/discover` shows
 * the extension, a summary that is still running answers with a task, `tasks/get` follows it to `completed`
 * with what `get_meeting` answers, and a server started again on the same state answers for the same task.
 * Raw JSON-RPC over the SDK's stdio transport (`startRawStdio`): the SDK client of 2.4 refuses a task answer.
 */
import { access, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expectSameResult, startRawStdio } from '@polymodal/mcp-common/testing';
import { type Sandbox, startSandbox, writeMeetingRecording } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHORT_SCRIPT } from './support/harness.js';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'index.js');
const TASKS = 'io.modelcontextprotocol/tasks';

describe('a meeting as a task over stdio (2026-07-28)', () => {
  let sandbox: Sandbox;
  let root: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    await access(BIN);
    sandbox = await startSandbox({ speed: 100, clock: 'held' });
    root = await mkdtemp(path.join(os.tmpdir(), 'mcp-meeting-tasks-stdio-'));
    await mkdir(path.join(root, 'media'), { recursive: true });
    env = {
      PATH: process.env.PATH ?? '',
      POLYMODAL_BASE_URL: sandbox.url,
      POLYMODAL_API_KEY: sandbox.apiKey,
      POLYMODAL_STATE_DIR: path.join(root, 'state'),
      POLYMODAL_ALLOWED_DIRS: path.join(root, 'media'),
      POLYMODAL_OUTPUT_DIR: path.join(root, 'out'),
      POLYMODAL_LOG_LEVEL: 'error',
    };
  });

  afterAll(async () => {
    await sandbox?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('answers with a task, follows it to the result of get_meeting, and again after a restart', async () => {
    const file = path.join(root, 'media', 'standup.wav');
    await writeMeetingRecording(file, { script: SHORT_SCRIPT });
    const first = await startRawStdio(BIN, env);
    let taskId: string;
    try {
      const discovered = await first.request('server/discover', {});
      expect(discovered).toMatchObject({ result: { capabilities: { extensions: { [TASKS]: {} } } } });
      const created = await first.request('tools/call', {
        name: 'summarize_meeting',
        arguments: { path: file },
      });
      expect(created).toMatchObject({ result: { resultType: 'task', status: 'working' } });
      taskId = (created.result as { taskId: string }).taskId;
      const working = await first.request('tasks/get', { taskId });
      expect(working).toMatchObject({ result: { taskId, status: 'working', resultType: 'complete' } });
    } finally {
      await first.close();
    }

    // Another process on the same state, once the job is done on the platform.
    sandbox.control.advance(600_000);
    const second = await startRawStdio(BIN, env);
    try {
      const done = await second.request('tasks/get', { taskId });
      const read = await second.request(
        'tools/call',
        { name: 'get_meeting', arguments: { jobId: taskId } },
        false,
      );
      const task = done.result as { status: string; result: Record<string, unknown> };
      expect(task.status).toBe('completed');
      const plain = read.result as Record<string, unknown>;
      expectSameResult(task.result, plain);
      expect(task.result).toMatchObject({
        resultType: 'complete',
        structuredContent: { status: 'COMPLETED' },
      });
    } finally {
      await second.close();
    }
    expect(Object.values(sandbox.control.counters().jobsCreated)).toEqual([1]);
  }, 60_000);
});
