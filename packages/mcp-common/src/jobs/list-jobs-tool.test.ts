import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createJobLedger } from '@polymodal/core/ledger';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectTools, ledgerDeps } from '../../test/support/test-tools.js';
import { listJobsTool } from './list-jobs-tool.js';

describe('list_jobs', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'list-jobs-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("lists this installation's jobs of the server's services, newest first, read-only", async () => {
    const ledger = createJobLedger({ dir });
    await ledger.insert({
      service: 'meeting',
      fingerprint: 'a',
      id: 'job_old',
      lastStatus: 'COMPLETED',
      title: 'Old',
      createdAt: '2024-01-01T00:00:00.000Z',
      request: { file: '/rec/old.wav' },
    });
    await ledger.insert({
      service: 'meeting',
      fingerprint: 'b',
      id: null,
      receipt: 'r',
      lastStatus: 'UPLOADED',
      createdAt: '2024-02-01T00:00:00.000Z',
    });
    await ledger.insert({ service: 'speech', fingerprint: 'c', id: 'other', lastStatus: 'PENDING' });

    const client = await connectTools(
      [listJobsTool({ services: ['meeting'], getTool: 'get_meeting' })],
      ledgerDeps(ledger),
    );

    const { tools } = await client.listTools();
    expect(tools[0]?.annotations?.readOnlyHint).toBe(true);
    const result = await client.callTool({ name: 'list_jobs', arguments: {} });
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as {
      jobs: { jobId: string | null; status: string }[];
      count: number;
    };
    expect(structured.count).toBe(2);
    expect(structured.jobs.map((job) => job.jobId)).toEqual([null, 'job_old']);
    expect(structured.jobs[1]).toMatchObject({ status: 'COMPLETED', title: 'Old', file: '/rec/old.wav' });
    const limited = await client.callTool({ name: 'list_jobs', arguments: { limit: 1 } });
    expect((limited.structuredContent as { count: number }).count).toBe(1);
    await client.close();
  });

  it('pages back through every job with the cursor, and filters by service and status before any platform call', async () => {
    const ledger = createJobLedger({ dir });
    const statuses = ['COMPLETED', 'PROCESSING', 'FAILED', 'done', 'canceled', 'UNKNOWN', 'NOT_CREATED'];
    for (let index = 0; index < 14; index++) {
      await ledger.insert({
        service: index % 2 === 0 ? 'meeting' : 'text-to-video',
        fingerprint: `fp-${index}`,
        id: `job-${index}`,
        lastStatus: statuses[index % statuses.length] ?? 'COMPLETED',
        createdAt: new Date(Date.UTC(2026, 0, 1 + index)).toISOString(),
      });
    }
    const client = await connectTools(
      [listJobsTool({ services: ['meeting', 'text-to-video'], getTool: 'get_meeting' })],
      ledgerDeps(ledger),
    );
    type Listed = { jobs: { jobId: string; status: string }[]; nextCursor?: string };
    const call = async (args: Record<string, unknown>) => {
      const result = await client.callTool({ name: 'list_jobs', arguments: args });
      const text = (result.content as { text: string }[])[0]?.text ?? '';
      return { result, text, listed: result.structuredContent as Listed };
    };
    const all = async (args: Record<string, unknown>) => {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const { listed, text } = await call({ ...args, ...(cursor ? { cursor } : {}) });
        seen.push(...listed.jobs.map((job) => job.jobId));
        cursor = listed.nextCursor;
        if (cursor) expect(text).toContain(`cursor "${cursor}"`);
      } while (cursor);
      return seen;
    };
    const newestFirst = (keep: (index: number) => boolean) =>
      [...Array(14).keys()]
        .reverse()
        .filter(keep)
        .map((index) => `job-${index}`);
    expect(await all({ limit: 3 })).toEqual(newestFirst(() => true));
    expect(await all({ limit: 2, service: 'text-to-video' })).toEqual(
      newestFirst((index) => index % 2 === 1),
    );
    // Still running: neither completed (COMPLETED, done), failed (FAILED, NOT_CREATED) nor cancelled.
    expect(await all({ limit: 2, status: 'running' })).toEqual(
      newestFirst((index) => [1, 5].includes(index % 7)),
    );
    expect(await all({ status: 'failed' })).toEqual(newestFirst((index) => [2, 6].includes(index % 7)));
    expect(await all({ status: 'completed', service: 'meeting' })).toEqual(
      newestFirst((index) => index % 2 === 0 && [0, 3].includes(index % 7)),
    );
    const wrongService = await call({ service: 'speech-text' });
    expect(wrongService.result.isError).toBe(true);
    expect(wrongService.text).toMatch(/service must be one of "meeting", "text-to-video"/);
    const wrongCursor = await call({ cursor: 'abc' });
    expect(wrongCursor.result.isError).toBe(true);
    expect(wrongCursor.text).toMatch(/cursor .*start again without it/);
    await client.close();
  });

  it('lists a job made of parts once, its parts beneath it in order (a part not recorded was not sent)', async () => {
    const ledger = createJobLedger({ dir });
    await ledger.insert({
      service: 'speech-synthesis',
      fingerprint: 'p1',
      id: 'task_1',
      lastStatus: 'SUCCESS',
    });
    await ledger.insert({
      service: 'speech-synthesis',
      fingerprint: 'p2',
      id: 'task_2',
      lastStatus: 'PENDING',
    });
    await ledger.insert({
      service: 'speech-text',
      fingerprint: 's',
      id: 'speech_1',
      lastStatus: 'RUNNING',
      title: 'Notes',
      request: {
        parts: ['p2', 'p1', 'p3'].map((fingerprint) => ({ service: 'speech-synthesis', fingerprint })),
      },
    });
    const client = await connectTools([listJobsTool({ services: ['speech-text'] })], ledgerDeps(ledger));

    const result = await client.callTool({ name: 'list_jobs', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { jobs: unknown[] }).jobs).toEqual([
      expect.objectContaining({
        service: 'speech-text',
        jobId: 'speech_1',
        parts: [
          { jobId: 'task_2', status: 'PENDING' },
          { jobId: 'task_1', status: 'SUCCESS' },
          { jobId: null, status: 'NOT_SENT' },
        ],
      }),
    ]);
    expect(JSON.stringify(result.content)).toContain('parts: 1 PENDING, 1 SUCCESS, 1 NOT_SENT');
    await client.close();
  });
});
