/**
 * A queued reading score as a native MCP Task, over stateless HTTP with a tenant, against a sandbox whose
 * clock the test holds: a recording longer than 20 s is queued by the platform, so the call is still waiting
 * after the first wait and becomes a task whose id is the job's handle. The extension's own requester
 * follows it to `completed` with exactly what `get_reading_score` answers; the reading is scored once.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  connectTasksHost,
  expectSameResult,
  serveTenants,
  settled,
  startSandboxAndRoot,
  tokenSha256,
} from '@polymodal/mcp-common/testing';
import { createReadingRecording, SAMPLE_READING_TEXT } from '@polymodal/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from '../src/server.js';

const TOKEN = 'speech-tasks-token-4b19';

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

describe('a queued reading score as a task over stateless HTTP', () => {
  it('follows score_reading as a task to the result get_reading_score gives, scored once', async () => {
    const { close, ...started } = await startSandboxAndRoot('mcp-speech-tasks-', {
      speed: 100,
      clock: 'held',
    });
    cleanups.push(close);
    const server = await serveTenants({
      ...started,
      tenants: [{ id: 'school-a', tokenSha256: tokenSha256(TOKEN) }],
      createServer: (options) => createServer(options as Parameters<typeof createServer>[0]),
      secrets: [TOKEN],
    });
    cleanups.push(() => server.close());
    const { sandbox, mediaDir } = started;
    // Longer than 20 s: the platform queues it instead of answering at once.
    const file = path.join(mediaDir, 'long-reading.wav');
    await writeFile(file, createReadingRecording({ attempts: [SAMPLE_READING_TEXT], secondsPerAttempt: 25 }));
    const teamA = await connectTasksHost(server.handle.url, TOKEN);
    cleanups.push(() => teamA.close());

    const execution = await teamA.session.callTool('score_reading', {
      studentAudioPath: file,
      referenceText: SAMPLE_READING_TEXT,
    });
    expect(execution.kind).toBe('task');
    const taskId = execution.handle?.taskId as string;
    expect(taskId).toEqual(expect.any(String));

    // The queued score is ready once the platform's clock moves on.
    sandbox.control.advance(60_000);
    const { status, result } = await settled(execution);
    expect(status).toBe('completed');
    expect(result?.structuredContent).toMatchObject({ done: true, correctWords: 7, referenceWords: 7 });

    const read = await teamA.client.callTool({ name: 'get_reading_score', arguments: { jobId: taskId } });
    expectSameResult(result, read);
    const scores = sandbox.control.counters().readingScores ?? {};
    expect(Object.values(scores).reduce((sum, n) => sum + n, 0)).toBe(1);
  });
});
