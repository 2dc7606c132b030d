/**
 * Meetings as native MCP Tasks, over stateless HTTP with two tenants, against a sandbox whose clock the test
 * holds. The host is the extension's own requester (`@modelcontextprotocol/ext-tasks`): a summary that is
 * still running after the first wait becomes a task whose id is the job's handle; the requester follows it
 * with `tasks/get` to `completed`, with exactly what `get_meeting` answers; a cancelled task cancels the
 * meeting on the platform. Another tenant's task methods answer "not found" before any platform request; a client
 * without the extension, and every 2025-11-25 client, is answered as before; a new server process answers
 * for a task the old one created. The sandbox saw one upload and one job per task.
 */
import path from 'node:path';
import {
  callToolRaw,
  connectTasksHost,
  expectSameResult,
  serveTenants,
  settled,
  startSandboxAndRoot,
  type TasksHost,
  taskRequest,
  teamTenants,
} from '@polymodal/mcp-common/testing';
import { type Sandbox, writeMeetingRecording } from '@polymodal/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from '../src/server.js';

const TOKENS = { a: 'tasks-a-token-71c2', b: 'tasks-b-token-e04f' };

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function serve(shared?: { sandbox: Sandbox; root: string; mediaDir: string }) {
  const started =
    shared ??
    (await (async () => {
      const { close, ...rest } = await startSandboxAndRoot('mcp-meeting-tasks-', {
        speed: 100,
        clock: 'held',
      });
      cleanups.push(close);
      return rest;
    })());
  const server = await serveTenants({
    ...started,
    tenants: teamTenants(TOKENS),
    createServer: (options) => createServer(options as Parameters<typeof createServer>[0]),
    secrets: Object.values(TOKENS),
  });
  return { ...started, server };
}

async function host(url: string, token: string): Promise<TasksHost> {
  const connected = await connectTasksHost(url, token);
  cleanups.push(() => connected.close());
  return connected;
}

async function recording(mediaDir: string, name: string, text: string) {
  const file = path.join(mediaDir, name);
  await writeMeetingRecording(file, { script: [{ speaker: 'Ann', text, seconds: 20 }], sampleRate: 4_000 });
  return file;
}

/** Requests the sandbox received that name the job. */
const requestsAbout = (sandbox: Sandbox, jobId: string) =>
  sandbox.control.requests({ path: `/jobs/${jobId}` }).length;

describe('meetings as tasks over stateless HTTP, with tenants', () => {
  it('follows a summary as a task to the result get_meeting gives, one upload and one job', async () => {
    const { sandbox, mediaDir, server } = await serve();
    cleanups.push(() => server.close());
    const file = await recording(mediaDir, 'standup.wav', 'We agreed to ship on Tuesday.');
    const teamA = await host(server.handle.url, TOKENS.a);

    const execution = await teamA.session.callTool('summarize_meeting', { path: file });
    expect(execution.kind).toBe('task');
    const taskId = execution.handle?.taskId as string;
    expect(taskId).toMatch(/^mtg_/);

    // The job runs to its end on the platform's clock; the host sees it completed.
    sandbox.control.advance(600_000);
    const { status, result } = await settled(execution);
    expect(status).toBe('completed');

    // Exactly what get_meeting answers for the finished job, read by a client without the extension.
    const read = await teamA.client.callTool({ name: 'get_meeting', arguments: { jobId: taskId } });
    expectSameResult(result, read);
    expect(result?.structuredContent).toMatchObject({
      done: true,
      status: 'COMPLETED',
      outcome: 'succeeded',
    });

    const counters = sandbox.control.counters();
    expect(Object.values(counters.uploads).reduce((sum, n) => sum + n, 0)).toBe(1);
    expect(Object.values(counters.jobsCreated).reduce((sum, n) => sum + n, 0)).toBe(1);
  });

  it("answers another tenant's task id as unknown, before any platform request", async () => {
    const { sandbox, mediaDir, server } = await serve();
    cleanups.push(() => server.close());
    const file = await recording(mediaDir, 'board.wav', 'The board approved the budget.');
    const teamA = await host(server.handle.url, TOKENS.a);
    // Started raw, so that no host follows the task (its reads would be counted below).
    const created = await callToolRaw(teamA.dispatch, 'summarize_meeting', { path: file });
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = created.taskId as string;

    // The other tenant: the same answer as for an id that exists nowhere, and nothing asked of the platform.
    const teamB = await host(server.handle.url, TOKENS.b);
    const seen = requestsAbout(sandbox, taskId);
    for (const id of [taskId, 'mtg_made_up_id']) {
      for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update'] as const) {
        expect(await taskRequest(teamB.dispatch, method, id)).toEqual({
          kind: 'error',
          error: { code: -32602, message: 'Failed to retrieve task: Task not found' },
        });
      }
    }
    expect(requestsAbout(sandbox, taskId)).toBe(seen);
    // Its owner still follows it.
    expect(await taskRequest(teamA.dispatch, 'tasks/get', taskId)).toMatchObject({
      kind: 'result',
      result: { taskId, status: 'working' },
    });
  });

  it('cancels the meeting on the platform when the task is cancelled', async () => {
    const { sandbox, mediaDir, server } = await serve();
    cleanups.push(() => server.close());
    const file = await recording(mediaDir, 'retro.wav', 'Let us talk about the release.');
    const teamA = await host(server.handle.url, TOKENS.a);
    const execution = await teamA.session.callTool('summarize_meeting', { path: file });
    expect(execution.kind).toBe('task');
    await execution.cancel();
    expect((await settled(execution)).status).toBe('cancelled');
    const taskId = execution.handle?.taskId as string;
    // The cancel action, the one POST about the job (`{ action: "cancel" }`).
    expect(sandbox.control.requests({ method: 'POST', path: `/jobs/${taskId}$` })).toHaveLength(1);
    const read = await teamA.client.callTool({ name: 'get_meeting', arguments: { jobId: taskId } });
    expect(read.structuredContent).toMatchObject({ done: true, status: 'CANCELLED', outcome: 'cancelled' });
  });

  it('answers a client without the extension as before, and a new server process follows the task', async () => {
    const first = await serve();
    const file = await recording(first.mediaDir, 'planning.wav', 'We decided to hire two people.');
    const teamA = await host(first.server.handle.url, TOKENS.a);
    // The same client, its call sent without the extension: the job's handle, as every client gets it.
    const plain = await teamA.client.callTool({
      name: 'summarize_meeting',
      arguments: { path: file, waitSeconds: 0 },
    });
    expect(plain).not.toHaveProperty('resultType', 'task');
    expect(plain.structuredContent).toMatchObject({ done: false });
    const jobId = (plain.structuredContent as { jobId: string }).jobId;

    // The same call with the extension resumes that job (nothing paid again) and answers with its task.
    const execution = await teamA.session.callTool('summarize_meeting', { path: file });
    expect(execution.kind).toBe('task');
    expect(execution.handle?.taskId).toBe(jobId);
    await execution.cancel().catch(() => undefined);
    await first.server.close();

    // A server started again on the same state answers for the task the first one created.
    const again = await serve({ sandbox: first.sandbox, root: first.root, mediaDir: first.mediaDir });
    cleanups.push(() => again.server.close());
    const resumed = await host(again.server.handle.url, TOKENS.a);
    const answer = await taskRequest(resumed.dispatch, 'tasks/get', jobId);
    expect(answer.kind).toBe('result');
    expect(answer).toMatchObject({ result: { taskId: jobId, resultType: 'complete' } });
    const counters = first.sandbox.control.counters();
    expect(Object.values(counters.jobsCreated).reduce((sum, n) => sum + n, 0)).toBe(1);
  });
});
