/**
 * The one job resource with a toy service, on a clock that moves only when the engine sleeps: when reads
 * happen, when a wait answers, and what it answers with.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createApiError } from '../errors/api-error.js';
import { JobFailedError, PollingTimeoutError, ValidationError } from '../errors/polymodal-error.js';
import { defineJobKind } from '../views/job-view.js';
import { createJobEngine } from './create-job-engine.js';
import { defineJobResource } from './job-resource.js';

interface ToyJob {
  status: 'queued' | 'running' | 'done' | 'failed';
  percent: number;
  reason?: string;
}

const TOY_JOB = defineJobKind<ToyJob>({
  isDone: (job) => job.status === 'done' || job.status === 'failed',
  status: (job) => job.status,
  progress: (job) => job.percent,
  outcome: (job) => (job.status === 'done' ? 'succeeded' : job.status === 'failed' ? 'failed' : undefined),
  error: (job) => (job.status === 'failed' ? (job.reason ?? 'no reason given') : null),
});

const INTERVAL_MS = 2_000;

/** A toy service whose answers are scripted per read (the last one repeats); records when each read came. */
function toyService(answers: Array<ToyJob | Error>, headers: Record<string, string> = {}) {
  const times: number[] = [];
  const start = Date.now();
  const engine = createJobEngine({
    now: () => Date.now(),
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      vi.setSystemTime(Date.now() + Math.max(0, ms));
    },
  });
  const jobs = defineJobResource<ToyJob>({
    service: 'toy',
    kind: TOY_JOB,
    engine,
    intervalMs: INTERVAL_MS,
    waitTimeoutMs: 60_000,
    locate: (id) => {
      if (id.includes('/')) throw new ValidationError(`Invalid toy job id ${id}.`);
      return { id, path: `/toy/${id}` };
    },
    fetch: async () => {
      times.push(Date.now() - start);
      const answer = answers[Math.min(times.length - 1, answers.length - 1)] as ToyJob | Error;
      if (answer instanceof Error) throw answer;
      return { status: 200, headers, data: answer };
    },
    failure: (job) => (job.status === 'failed' ? { errorMessage: job.reason ?? null } : undefined),
  });
  return { jobs, times };
}

const queued: ToyJob = { status: 'queued', percent: 0 };
const running: ToyJob = { status: 'running', percent: 50 };
const done: ToyJob = { status: 'done', percent: 100 };

describe('defineJobResource', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits at the interval, tells each read, and answers with the stopped job and its view', async () => {
    const { jobs, times } = toyService([queued, running, done]);
    const seen: string[] = [];
    const job = await jobs.wait('j1', { onProgress: (current) => seen.push(current.status) });
    expect(job).toEqual(done);
    expect(times).toEqual([0, 2_000, 4_000]);
    expect(seen).toEqual(['queued', 'running', 'done']);
    expect(jobs.view(job)).toEqual({ status: 'done', progress: 100, outcome: 'succeeded', error: null });
    expect(jobs.view(running)).toEqual({ status: 'running', progress: 50, outcome: undefined, error: null });
  });

  it('keeps the interval across calls, and a Retry-After longer than it', async () => {
    const { jobs, times } = toyService([running], { 'retry-after': '5' });
    await jobs.retrieve('j1');
    // A poll right after the read reuses it; the next read waits for the platform's 5 s, not the 2 s.
    const outcome = await jobs.poll('j1', { deadline: Date.now() + 6_000 });
    expect(outcome).toMatchObject({ done: false, value: running, reads: 1 });
    expect(times).toEqual([0, 5_000]);
  });

  it('until: an action waits for the job to move, not to stop', async () => {
    const { jobs, times } = toyService([queued, queued, running, done]);
    const outcome = await jobs.poll('j1', {
      deadline: Date.now() + 60_000,
      until: (job) => job.status !== 'queued',
    });
    expect(outcome).toMatchObject({ done: true, value: running });
    expect(times).toEqual([0, 2_000, 4_000]);
  });

  it('a wait that outlives timeoutMs throws PollingTimeoutError with the last status; the job goes on', async () => {
    const { jobs, times } = toyService([running]);
    const error = await jobs.wait('j1', { timeoutMs: 5_000 }).catch((caught: unknown) => caught);
    expect(PollingTimeoutError.isInstance(error)).toBe(true);
    expect((error as PollingTimeoutError).lastStatus).toBe('running');
    // No read at the deadline itself: 0, 2 s and 4 s.
    expect(times).toEqual([0, 2_000, 4_000]);
  });

  it('a stopped job that is no result: JobFailedError with the reason; its view says failed', async () => {
    const failed: ToyJob = { status: 'failed', percent: 10, reason: 'the input was empty' };
    const { jobs } = toyService([running, failed]);
    const error = await jobs.wait('j1').catch((caught: unknown) => caught);
    expect(JobFailedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ service: 'toy', jobId: 'j1', status: 'failed' });
    expect((error as Error).message).toContain('the input was empty');
    expect(jobs.view(failed)).toMatchObject({ outcome: 'failed', error: 'the input was empty' });
  });

  it('currentStatus: one read, undefined for a job the service no longer has', async () => {
    const gone = createApiError({ status: 404, method: 'GET', url: '/toy/j1', body: undefined });
    expect(await toyService([running]).jobs.currentStatus('j1', currentRequest())).toBe('running');
    const { jobs, times } = toyService([gone]);
    expect(await jobs.currentStatus('j1', currentRequest())).toBeUndefined();
    expect(times).toHaveLength(1);
  });

  it('refuses an id that cannot be a job before any read', async () => {
    const { jobs, times } = toyService([running]);
    await expect(jobs.poll('../j1', { deadline: Date.now() })).rejects.toSatisfy(ValidationError.isInstance);
    await expect(jobs.wait('../j1')).rejects.toSatisfy(ValidationError.isInstance);
    expect(times).toEqual([]);
  });
});

function currentRequest() {
  return { signal: new AbortController().signal, deadline: Date.now() + 10_000 };
}
