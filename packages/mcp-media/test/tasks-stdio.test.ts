/**
 * A video as a task over stdio, as Claude Code runs the built media bin on 2026-07-28: `generate_video` of a
 * job still running answers with a task, `tasks/get` follows it to `completed` with what `get_video_job`
 * answers (the saved MP4 linked as a resource), a cancel the service cannot carry out is noted and said, and
 * the sandbox saw one video job.
 */
import { access, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expectSameResult, startRawStdio } from '@polymodal/mcp-common/testing';
import { type Sandbox, startSandbox } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'index.js');

describe('a video as a task over stdio (2026-07-28)', () => {
  let sandbox: Sandbox;
  let root: string;

  beforeAll(async () => {
    await access(BIN);
    sandbox = await startSandbox({ speed: 100, clock: 'held' });
    root = await mkdtemp(path.join(os.tmpdir(), 'mcp-media-tasks-stdio-'));
  });

  afterAll(async () => {
    await sandbox?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('follows generate_video as a task to the result of get_video_job, and says a cancel cannot stop it', async () => {
    const server = await startRawStdio(BIN, {
      PATH: process.env.PATH ?? '',
      POLYMODAL_BASE_URL: sandbox.url,
      POLYMODAL_API_KEY: sandbox.apiKey,
      POLYMODAL_STATE_DIR: path.join(root, 'state'),
      POLYMODAL_ALLOWED_DIRS: root,
      POLYMODAL_OUTPUT_DIR: path.join(root, 'out'),
      POLYMODAL_LOG_LEVEL: 'error',
      // Reads of a job 20 ms apart (the sandbox's pace), which tasks/get tells the host as pollIntervalMs.
      POLYMODAL_POLL_INTERVAL_MS: '20',
    });
    try {
      const created = await server.request('tools/call', {
        name: 'generate_video',
        arguments: { model: 'hub:text-to-video-lite', prompt: 'A paper boat at sunrise', duration: 5 },
      });
      expect(created).toMatchObject({ result: { resultType: 'task', status: 'working' } });
      const taskId = (created.result as { taskId: string }).taskId;

      // The catalog service cannot stop a job: the cancel is acknowledged, noted, and said while it runs.
      expect(await server.request('tasks/cancel', { taskId })).toMatchObject({
        result: { resultType: 'complete' },
      });
      const noted = await server.request('tasks/get', { taskId });
      expect(noted).toMatchObject({ result: { status: 'working' } });
      expect((noted.result as { statusMessage: string }).statusMessage).toMatch(
        /^Cancel requested: .*cannot stop/,
      );

      sandbox.control.advance(3_600_000);
      // As a host polls: at the interval the task names (the sandbox's pace here), until it ends.
      expect((noted.result as { pollIntervalMs: number }).pollIntervalMs).toBe(20);
      const task = (await server.follow(taskId)) as { status: string; result: Record<string, unknown> };
      const read = await server.request(
        'tools/call',
        { name: 'get_video_job', arguments: { jobId: taskId } },
        false,
      );
      expect(task.status).toBe('completed');
      const plain = read.result as Record<string, unknown>;
      expectSameResult(task.result, plain);
      expect(task.result.content).toContainEqual(expect.objectContaining({ type: 'resource_link' }));
    } finally {
      await server.close();
    }
    expect(Object.values(sandbox.control.counters().jobsCreated)).toEqual([1]);
  }, 60_000);
});
