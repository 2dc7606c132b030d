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
