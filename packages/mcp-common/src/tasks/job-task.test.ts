import { ConnectionError, TimeoutError, ValidationError } from '@polymodal/core';
import { createApiError } from '@polymodal/core/errors';
import type { LedgerEntry } from '@polymodal/core/ledger';
import { describe, expect, it } from 'vitest';
import { toolError } from '../errors/tool-error.js';
import type { CallToolResult } from '../protocol/sdk-types.js';
import { isRunningJob, type TaskedJob, taskOf } from './job-task.js';

const NOW = new Date('2026-08-01T12:00:05.000Z');

function entry(overrides: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    service: 'catalog-video',
    fingerprint: 'fp-1',
    id: 'cv_123',
    createdAt: '2026-08-01T11:59:00.000Z',
    updatedAt: '2026-08-01T12:00:00.000Z',
    lastStatus: 'running',
    revision: 3,
    ...overrides,
  };
}

function job(overrides: Partial<LedgerEntry> = {}, readIntervalMs = 5_000): TaskedJob {
  return { entry: entry(overrides), readIntervalMs };
}

function answer(structured: Record<string, unknown>, text: string): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

const running = answer(
  { jobId: 'cv_123', done: false, status: 'running' },
  'Video cv_123 is running (40%).\nCall get_video_job with jobId cv_123.',
);

/** A tool's error answer, as the tools give it (`toolError`: the kind and status in `_meta`). */
const errorOf = (error: unknown) => toolError(error, { secrets: [] });
const apiError = (status: number) =>
  createApiError({ status, method: 'GET', url: '/api/video/v1/jobs/cv_123', body: undefined });

describe('taskOf: a job as a task, from its get_* answer', () => {
  it('a job still running is working, its first line as the status message', () => {
    expect(taskOf(job(), running, NOW)).toEqual({
      taskId: 'cv_123',
      status: 'working',
      statusMessage: 'Video cv_123 is running (40%).',
      createdAt: '2026-08-01T11:59:00.000Z',
      lastUpdatedAt: NOW.toISOString(),
      ttlMs: null,
      pollIntervalMs: 5_000,
    });
  });

  it('a job that succeeded is completed with exactly the tool result, marked complete', () => {
    const result = answer(
      { jobId: 'cv_123', done: true, status: 'done', outcome: 'succeeded', savedPath: '/out/v.mp4' },
      'Video cv_123 is done: saved as v.mp4.',
    );
    const task = taskOf(job(), result, NOW);
    expect(task.status).toBe('completed');
    expect(task.result).toEqual({ ...result, resultType: 'complete' });
  });

  it('a job the platform failed is completed, not failed: its result says the outcome and the reason', () => {
    const result = answer(
      { jobId: 'cv_123', done: true, status: 'failed', outcome: 'failed', error: 'prompt refused' },
      'Video cv_123 ended failed: prompt refused. Nothing was saved.',
    );
    const task = taskOf(job(), result, NOW);
    expect(task.status).toBe('completed');
    expect(task.result).toEqual({ ...result, resultType: 'complete' });
    expect(task.statusMessage).toBe('Video cv_123 ended failed: prompt refused. Nothing was saved.');
  });

  it('a cancelled job is a cancelled task, without a result', () => {
    const result = answer(
      { jobId: 'mtg_1', done: true, status: 'CANCELLED', outcome: 'cancelled' },
      'Meeting mtg_1 was cancelled.',
    );
    const task = taskOf(job({ id: 'mtg_1', service: 'meeting' }), result, NOW);
    expect(task.status).toBe('cancelled');
    expect(task).not.toHaveProperty('result');
    expect(task.statusMessage).toBe('Meeting mtg_1 was cancelled.');
  });

  it.each([
    [
      'the platform unreachable',
      new ConnectionError('connect ECONNREFUSED', { requestMayHaveArrived: false }),
    ],
    ['the platform slow', new TimeoutError('no answer within 30 s', 30_000)],
    ['the platform busy (429)', apiError(429)],
    ['the platform down (503)', apiError(503)],
    ['the platform failing (500)', apiError(500)],
    [
      'the server itself (a ledger busy under load)',
      new Error('the job ledger entry is locked by another writer'),
    ],
  ])('a read that failed because of %s leaves the task working, saying what happened', (_, error) => {
    const result = errorOf(error);
    const task = taskOf(job(), result, NOW);
    expect(task.status).toBe('working');
    expect(task).not.toHaveProperty('result');
    const first = result.content[0];
    expect(task.statusMessage).toBe(first?.type === 'text' ? first.text.split('\n')[0] : undefined);
  });

  it.each([
    ['an unknown job (404)', apiError(404)],
    ['a refused key (401)', apiError(401)],
    ['invalid input', new ValidationError('jobId: required')],
  ])('a read refused for %s is completed with the error result', (_, error) => {
    const result = errorOf(error);
    const task = taskOf(job(), result, NOW);
    expect(task.status).toBe('completed');
    expect(task.result).toEqual({ ...result, resultType: 'complete' });
    expect(task.result?.isError).toBe(true);
  });

  it("polls no more often than the service's read interval or the platform's largest Retry-After", () => {
    expect(taskOf(job({ retryAfterFloorMs: 12_000 }, 5_000), running, NOW).pollIntervalMs).toBe(12_000);
    expect(taskOf(job({ retryAfterFloorMs: 2_000 }, 5_000), running, NOW).pollIntervalMs).toBe(5_000);
    expect(taskOf(job({ retryAfterFloorMs: null }, 7_500), running, NOW).pollIntervalMs).toBe(7_500);
  });

  it('promises no expiry and dates the task from the job entry', () => {
    const task = taskOf(job({ createdAt: '2026-07-30T08:00:00.000Z' }), running, NOW);
    expect(task.ttlMs).toBeNull();
    expect(task.createdAt).toBe('2026-07-30T08:00:00.000Z');
    expect(task.lastUpdatedAt).toBe(NOW.toISOString());
  });

  it('has no status message when the answer has no text', () => {
    const task = taskOf(job(), { content: [], structuredContent: { jobId: 'cv_123', done: false } }, NOW);
    expect(task.status).toBe('working');
    expect(task).not.toHaveProperty('statusMessage');
  });
});

describe('isRunningJob: the answers a task replaces', () => {
  it('is a job handle not done', () => {
    expect(isRunningJob(running)).toBe(true);
  });

  it('is not a finished job, an error, or an answer without a job id', () => {
    expect(isRunningJob(answer({ jobId: 'cv_123', done: true, outcome: 'succeeded' }, 'done'))).toBe(false);
    expect(isRunningJob({ ...running, isError: true })).toBe(false);
    expect(isRunningJob(answer({ done: false }, 'still running'))).toBe(false);
    expect(isRunningJob(answer({ jobId: 42, done: false }, 'still running'))).toBe(false);
    expect(isRunningJob({ content: [{ type: 'text', text: 'no structured content' }] })).toBe(false);
  });
});
