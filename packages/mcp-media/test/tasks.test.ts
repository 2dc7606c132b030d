/**
 * Media jobs as native MCP Tasks, over stateless HTTP with two tenants, against a sandbox whose clock the test
 * holds. The host is the extension's own requester (`@modelcontextprotocol/ext-tasks`): a video or a deck of
 * flashcards still running after the first wait becomes a task whose id is the job's handle, followed to
 * `completed` with exactly what `get_video_job` / `get_flashcards` / `get_speech` answers, a job the platform failed
 * included (its outcome and reason are the result; the task does not "fail"). The video service cannot stop
 * a job, so a cancelled task is a note that the status message repeats while the job runs to its end. Another
 * tenant's `tasks/get` is "not found". The extension is reached only by a 2026-07-28 request that declares
 * it, and advertised only by a server whose tools follow jobs.
 */
import {
  answerOf,
  callToolRaw,
  connectTasksHost,
  expectSameResult,
  followTask,
  JSON_HEADERS,
  modernEnvelope,
  modernRequest,
  rawRequest,
  serveTenants,
  settled,
  startSandboxAndRoot,
  type TasksHost,
  taskRequest,
  teamTenants,
} from '@polymodal/mcp-common/testing';
import type { Sandbox } from '@polymodal/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from '../src/server.js';

const TOKENS = { a: 'media-tasks-a-5e71', b: 'media-tasks-b-93c0' };
const TASKS = 'io.modelcontextprotocol/tasks';
const VIDEO = { model: 'hub:text-to-video-lite', duration: 5 };
/** Past the end of every job these tests start, on the held clock. */
const PAST_EVERY_JOB_MS = 600_000;

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function serve(options: { readOnly?: boolean } = {}) {
  const { close, ...started } = await startSandboxAndRoot('mcp-media-tasks-', { speed: 100, clock: 'held' });
  cleanups.push(close);
  const server = await serveTenants({
    ...started,
    tenants: teamTenants(TOKENS),
    createServer: (deps) =>
      createServer({
        ...(deps as Parameters<typeof createServer>[0]),
        ...(options.readOnly ? { readOnly: true } : {}),
      }),
    secrets: Object.values(TOKENS),
  });
  cleanups.push(() => server.close());
  return { ...started, server };
}

async function host(url: string, token: string): Promise<TasksHost> {
  const connected = await connectTasksHost(url, token);
  cleanups.push(() => connected.close());
  return connected;
}

const total = (counts: Record<string, number>) => Object.values(counts).reduce((sum, n) => sum + n, 0);
const jobsCreated = (sandbox: Sandbox) => total(sandbox.control.counters().jobsCreated);

/** Requests the sandbox received that name the video job. */
const requestsAbout = (sandbox: Sandbox, jobId: string) =>
  sandbox.control.requests({ path: `/videos/${jobId}` }).length;

describe('media jobs as tasks over stateless HTTP, with tenants', () => {
  it('follows a video as a task to the result get_video_job gives, one job', async () => {
    const { sandbox, server } = await serve();
    const teamA = await host(server.handle.url, TOKENS.a);

    const execution = await teamA.session.callTool('generate_video', {
      ...VIDEO,
      prompt: 'A paper boat on a calm lake',
    });
    expect(execution.kind).toBe('task');
    const taskId = execution.handle?.taskId as string;
    expect(taskId).toMatch(/^cv_/);

    // The job runs to its end on the platform's clock; the host sees it completed.
    sandbox.control.advance(PAST_EVERY_JOB_MS);
    const { status, result } = await settled(execution);
    expect(status).toBe('completed');

    // Exactly what get_video_job answers for the finished job, read by a client without the extension.
    const read = await teamA.client.callTool({ name: 'get_video_job', arguments: { jobId: taskId } });
    expectSameResult(result, read);
    expect(result?.structuredContent).toMatchObject({ done: true, status: 'done', outcome: 'succeeded' });
    expect(result?.structuredContent?.savedPath).toEqual(expect.any(String));
    expect(jobsCreated(sandbox)).toBe(1);
  });

  it("answers another tenant's tasks/get as for an unknown id, before any platform request", async () => {
    const { sandbox, server } = await serve();
    const teamA = await host(server.handle.url, TOKENS.a);
    // Started raw, so that no host of team A follows the task meanwhile (its reads would be counted below).
    const started = await callToolRaw(teamA.dispatch, 'generate_video', {
      ...VIDEO,
      prompt: 'A heron in the reeds',
    });
    expect(started).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = started.taskId as string;

    const teamB = await host(server.handle.url, TOKENS.b);
    const seen = requestsAbout(sandbox, taskId);
    for (const id of [taskId, 'cv_made_up_id']) {
      for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update'] as const) {
        expect(await taskRequest(teamB.dispatch, method, id), `${method} ${id}`).toEqual({
          kind: 'error',
          error: { code: -32602, message: 'Failed to retrieve task: Task not found' },
        });
      }
    }
    expect(requestsAbout(sandbox, taskId)).toBe(seen);
    // Team A's own task is there, and team B's cancel left no note on it.
    const own = await taskRequest(teamA.dispatch, 'tasks/get', taskId);
    expect(own).toMatchObject({ kind: 'result', result: { taskId, status: 'working' } });
    expect(JSON.stringify(own)).not.toMatch(/Cancel requested/);
    // Its owner's tasks/update is acknowledged (nothing of ours waits for input).
    expect(await taskRequest(teamA.dispatch, 'tasks/update', taskId)).toMatchObject({
      kind: 'result',
      result: { resultType: 'complete' },
    });
  });

  it('notes a cancel it cannot carry out: the status message says so, the video still completes, nothing more is created', async () => {
    const { sandbox, server } = await serve();
    const teamA = await host(server.handle.url, TOKENS.a);
    const execution = await teamA.session.callTool('generate_video', {
      ...VIDEO,
      prompt: 'A lighthouse at dusk',
    });
    expect(execution.kind).toBe('task');
    const taskId = execution.handle?.taskId as string;
    const before = await taskRequest(teamA.dispatch, 'tasks/get', taskId);
    expect(before).toMatchObject({ kind: 'result', result: { taskId, status: 'working' } });
    expect(JSON.stringify(before)).not.toMatch(/Cancel requested/);

    await execution.cancel();
    const after = await taskRequest(teamA.dispatch, 'tasks/get', taskId);
    expect(after, JSON.stringify(after)).toMatchObject({
      kind: 'result',
      result: { taskId, status: 'working' },
    });
    const message = (after as { result: { statusMessage?: string } }).result.statusMessage;
    expect(message).toMatch(/^Cancel requested: this service cannot stop a job once started/);
    // The job's own state follows the note.
    expect(message).toContain(`Video ${taskId} is`);

    sandbox.control.advance(PAST_EVERY_JOB_MS);
    const done = await followTask(teamA.dispatch, taskId);
    expect(done).toMatchObject({
      taskId,
      status: 'completed',
      result: { resultType: 'complete', structuredContent: { done: true, outcome: 'succeeded' } },
    });
    expect(jobsCreated(sandbox)).toBe(1);
    // One generation request, and no other write about the job.
    expect(sandbox.control.requests({ method: 'POST' })).toHaveLength(1);
  });

  it('a new variation of a video whose task was cancelled is a task of its own, without the earlier cancel', async () => {
    const { sandbox, server } = await serve();
    const teamA = await host(server.handle.url, TOKENS.a);
    const args = { ...VIDEO, prompt: 'A windmill in the rain' };
    const first = await callToolRaw(teamA.dispatch, 'generate_video', args);
    expect(first).toMatchObject({ resultType: 'task' });
    const firstId = first.taskId as string;
    expect(await taskRequest(teamA.dispatch, 'tasks/cancel', firstId)).toMatchObject({ kind: 'result' });
    sandbox.control.advance(PAST_EVERY_JOB_MS);
    expect(await followTask(teamA.dispatch, firstId)).toMatchObject({ status: 'completed' });

    // The same request, asked anew: another job (paid again), followed as a task nobody cancelled.
    const second = await callToolRaw(teamA.dispatch, 'generate_video', { ...args, newVariation: true });
    expect(second).toMatchObject({ resultType: 'task', status: 'working' });
    const secondId = second.taskId as string;
    expect(secondId).not.toBe(firstId);
    expect(second.statusMessage).not.toMatch(/Cancel requested/);
    const read = await taskRequest(teamA.dispatch, 'tasks/get', secondId);
    expect(read).toMatchObject({ kind: 'result', result: { taskId: secondId, status: 'working' } });
    expect((read as { result: { statusMessage?: string } }).result.statusMessage).not.toMatch(
      /Cancel requested/,
    );
    expect(jobsCreated(sandbox)).toBe(2);
  });

  it('keeps the task working while the platform cannot answer (503), and completes it once it can', async () => {
    const { sandbox, server } = await serve();
    const teamA = await host(server.handle.url, TOKENS.a);
    const started = await callToolRaw(teamA.dispatch, 'generate_video', {
      ...VIDEO,
      prompt: 'A fox in the snow',
    });
    expect(started).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = started.taskId as string;
    sandbox.control.setFaults([
      { match: { method: 'GET', path: `/videos/${taskId}$` }, kind: 'status', status: 503, count: 1_000 },
    ]);
    // The job is done on the platform, which cannot say so now: the task is not over, and not failed.
    sandbox.control.advance(PAST_EVERY_JOB_MS);
    const pollIntervalMs = started.pollIntervalMs as number;
    const refused = () => sandbox.control.counters().faults.status ?? 0;
    // Read as a host reads, a poll interval apart, until the platform refused reads of the job twice.
    for (let reads = 0; refused() < 2; reads++) {
      expect(reads, 'reads of the task before the platform refused two').toBeLessThan(200);
      await new Promise((resolve) => setTimeout(resolve, pollIntervalMs));
      const during = await taskRequest(teamA.dispatch, 'tasks/get', taskId);
      expect(during).toMatchObject({ kind: 'result', result: { taskId, status: 'working' } });
      expect(during).not.toHaveProperty('result.result');
    }

    sandbox.control.clearFaults();
    expect(await followTask(teamA.dispatch, taskId)).toMatchObject({
      taskId,
      status: 'completed',
      result: { structuredContent: { done: true, outcome: 'succeeded' } },
    });
    expect(jobsCreated(sandbox)).toBe(1);
  });

  it('completes the task of a video the platform failed, with the outcome and the reason get_video_job gives', async () => {
    const { sandbox, server } = await serve();
    const teamA = await host(server.handle.url, TOKENS.a);
    const execution = await teamA.session.callTool('generate_video', {
      ...VIDEO,
      prompt: 'please [sandbox:fail]',
    });
    expect(execution.kind).toBe('task');
    const taskId = execution.handle?.taskId as string;

    sandbox.control.advance(PAST_EVERY_JOB_MS);
    const { status, result } = await settled(execution);
    expect(status).toBe('completed');
    expect(result?.structuredContent).toMatchObject({ done: true, status: 'failed', outcome: 'failed' });
    expect(result?.structuredContent?.error).toMatch(/content policy/);
    const read = await teamA.client.callTool({ name: 'get_video_job', arguments: { jobId: taskId } });
    expectSameResult(result, read);
    expect(jobsCreated(sandbox)).toBe(1);
  });

  it('follows flashcards from a YouTube video as a task to the result get_flashcards gives', async () => {
    const { sandbox, server } = await serve();
    const teamA = await host(server.handle.url, TOKENS.a);
    const execution = await teamA.session.callTool('create_flashcards', {
      video: 'https://youtu.be/dQw4w9WgXcQ',
      learningDirection: 'korean_to_chinese',
    });
    expect(execution.kind).toBe('task');
    const taskId = execution.handle?.taskId as string;
    expect(taskId).toMatch(/^vf_/);

    sandbox.control.advance(PAST_EVERY_JOB_MS);
    const { status, result } = await settled(execution);
    expect(status).toBe('completed');
    expect(result?.structuredContent).toMatchObject({ done: true, sourceLanguage: 'ko' });
    const read = await teamA.client.callTool({ name: 'get_flashcards', arguments: { jobId: taskId } });
    expectSameResult(result, read);
    expect(jobsCreated(sandbox)).toBe(1);
  });
  it('follows a long speech as a task to the result get_speech gives: one part per sentence group, each paid once', async () => {
    const { sandbox, server } = await serve();
    const teamA = await host(server.handle.url, TOKENS.a);
    const text =
      'Anna will send the revised budget to finance by Friday afternoon. ' +
      'Ben is going to book the venue for the spring workshop and confirm the catering order. ' +
      'Chloe will draft the customer newsletter and share it with the team for review on Monday.';
    const execution = await teamA.session.callTool('synthesize_speech', { text, language: 'en' });
    expect(execution.kind).toBe('task');
    const taskId = execution.handle?.taskId as string;
    expect(jobsCreated(sandbox)).toBeGreaterThan(0);

    sandbox.control.advance(PAST_EVERY_JOB_MS);
    const { status, result } = await settled(execution);
    expect(status).toBe('completed');
    expect(result?.structuredContent).toMatchObject({ done: true, outcome: 'succeeded' });
    const read = await teamA.client.callTool({ name: 'get_speech', arguments: { jobId: taskId } });
    expectSameResult(result, read);
    // Every part was created once: following the task started none again.
    const parts = result?.structuredContent?.parts as unknown[];
    expect(parts.length).toBeGreaterThan(1);
    expect(jobsCreated(sandbox)).toBe(parts.length);
  });
});

describe('who reaches the extension', () => {
  it('refuses tasks/get to a 2026-07-28 request without the extension (-32021) and to 2025-11-25 (-32601)', async () => {
    const { server } = await serve();
    const teamA = await host(server.handle.url, TOKENS.a);
    const execution = await teamA.session.callTool('generate_video', { ...VIDEO, prompt: 'A red kite' });
    const taskId = execution.handle?.taskId as string;
    // Declared, the same request is answered: what is refused below is the request, not the id.
    expect(await taskRequest(teamA.dispatch, 'tasks/get', taskId)).toMatchObject({
      kind: 'result',
      result: { taskId, status: 'working' },
    });

    const undeclared = await taskRequest(teamA.dispatch, 'tasks/get', taskId, modernEnvelope({}));
    expect(undeclared).toMatchObject({ kind: 'error', error: { code: -32021 } });
    expect((undeclared as { error: { message: string } }).error.message).toContain(TASKS);

    // A 2025-11-25 request: the extension does not exist in that protocol, so neither does the method.
    const legacy = await rawRequest(
      server.handle.url,
      { ...JSON_HEADERS, 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${TOKENS.a}` },
      JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tasks/get', params: { taskId } }),
    );
    expect(answerOf(legacy.body, 9)).toMatchObject({ error: { code: -32601 } });
  });

  it('answers a 2026-07-28 call without the extension as before: a running job, not a task', async () => {
    const { sandbox, server } = await serve();
    const teamA = await host(server.handle.url, TOKENS.a);
    const plain = await teamA.client.callTool({
      name: 'generate_video',
      arguments: { ...VIDEO, prompt: 'A slow sunrise', waitSeconds: 0 },
    });
    expect(plain).not.toHaveProperty('resultType', 'task');
    expect(plain.isError).not.toBe(true);
    expect(plain.structuredContent).toMatchObject({ done: false, jobId: expect.stringMatching(/^cv_/) });
    expect(jobsCreated(sandbox)).toBe(1);
  });

  it('advertises the extension as {} in server/discover, and a read-only server (no job tools) does not', async () => {
    const discover = async (url: string) => {
      const request = modernRequest('server/discover');
      const response = await rawRequest(
        url,
        { ...request.headers, authorization: `Bearer ${TOKENS.a}` },
        request.body,
      );
      return answerOf(response.body, 1) as {
        result: { capabilities: { extensions?: Record<string, unknown> } };
      };
    };
    const full = await serve();
    expect((await discover(full.server.handle.url)).result.capabilities.extensions?.[TASKS]).toEqual({});

    const readOnly = await serve({ readOnly: true });
    const answer = await discover(readOnly.server.handle.url);
    expect(answer.result.capabilities).toBeDefined();
    expect(answer.result.capabilities.extensions ?? {}).not.toHaveProperty(TASKS);
  });
});
