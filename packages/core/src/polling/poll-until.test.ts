import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ConnectionError,
  createApiError,
  NotFoundError,
  PollingTimeoutError,
  TimeoutError,
} from '../errors/index.js';
import { pollUntil } from './poll-until.js';

interface Job {
  status: string;
}

/** A job that reports the given statuses in order (the last one repeats). */
function scripted(statuses: (string | Error)[]) {
  const calls: number[] = [];
  const retrieve = vi.fn(async (_signal: AbortSignal): Promise<Job> => {
    calls.push(Date.now());
    const next = statuses.length > 1 ? statuses.shift() : statuses[0];
    if (next instanceof Error) throw next;
    return { status: next as string };
  });
  return { retrieve, calls };
}

const common = { isDone: (job: Job) => job.status === 'DONE', service: 'meeting', jobId: 'job-1' };
const api = (status: number, retryAfter?: number) =>
  createApiError({ status, method: 'GET', url: '/jobs/job-1', body: null, retryAfterMs: retryAfter });

describe('pollUntil', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reads at once, then every interval, reporting progress until done', async () => {
    const { retrieve, calls } = scripted(['PENDING', 'WORKING', 'DONE']);
    const seen: string[] = [];
    const start = Date.now();
    const result = pollUntil({
      ...common,
      retrieve,
      intervalMs: 5000,
      onProgress: (job) => seen.push(job.status),
    });
    await vi.advanceTimersByTimeAsync(10_000);
    await expect(result).resolves.toEqual({ status: 'DONE' });
    expect(calls.map((time) => time - start)).toEqual([0, 5000, 10_000]);
    expect(seen).toEqual(['PENDING', 'WORKING', 'DONE']);
  });

  it('stops at the deadline with a PollingTimeoutError carrying the last status', async () => {
    const { retrieve } = scripted(['TRANSCRIBING']);
    const result = pollUntil({ ...common, retrieve, intervalMs: 5000, timeoutMs: 12_000 });
    const settled = result.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(12_000);
    const error = (await settled) as PollingTimeoutError;
    expect(PollingTimeoutError.isInstance(error)).toBe(true);
    expect(error.lastStatus).toBe('TRANSCRIBING');
    expect(error.jobId).toBe('job-1');
    expect(error.message).toContain('still TRANSCRIBING');
    // 0, 5 s, 10 s and a final read exactly at the 12 s deadline.
    expect(retrieve).toHaveBeenCalledTimes(4);
  });

  it('tolerates transient errors and keeps polling', async () => {
    const { retrieve } = scripted([
      'PENDING',
      new ConnectionError('reset', { requestMayHaveArrived: true }),
      api(503),
      new TimeoutError('slow', 100),
      'DONE',
    ]);
    const result = pollUntil({ ...common, retrieve, intervalMs: 1000 });
    await vi.advanceTimersByTimeAsync(4000);
    await expect(result).resolves.toEqual({ status: 'DONE' });
    expect(retrieve).toHaveBeenCalledTimes(5);
  });

  it('gives up after more than maxConsecutiveErrors transient errors in a row', async () => {
    const failure = api(500);
    const { retrieve } = scripted([failure]);
    const result = pollUntil({ ...common, retrieve, intervalMs: 1000, maxConsecutiveErrors: 2 });
    const settled = result.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(5000);
    expect(await settled).toBe(failure);
    expect(retrieve).toHaveBeenCalledTimes(3);
  });

  it('throws a 404 at once', async () => {
    const { retrieve } = scripted(['PENDING', api(404), 'DONE']);
    const result = pollUntil({ ...common, retrieve, intervalMs: 1000 });
    const settled = result.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await settled).toBeInstanceOf(NotFoundError);
    expect(retrieve).toHaveBeenCalledTimes(2);
  });

  it('waits at least the Retry-After of a 429 before the next read', async () => {
    const { retrieve, calls } = scripted([api(429, 20_000), 'DONE']);
    const start = Date.now();
    const result = pollUntil({ ...common, retrieve, intervalMs: 5000 });
    await vi.advanceTimersByTimeAsync(20_000);
    await expect(result).resolves.toEqual({ status: 'DONE' });
    expect(calls.map((time) => time - start)).toEqual([0, 20_000]);
  });

  it('rethrows the caller abort reason promptly, also during the pause', async () => {
    const { retrieve } = scripted(['PENDING']);
    const controller = new AbortController();
    const reason = new Error('cancelled by user');
    const result = pollUntil({ ...common, retrieve, intervalMs: 60_000, signal: controller.signal });
    const settled = result.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(1000);
    controller.abort(reason);
    await vi.advanceTimersByTimeAsync(0);
    expect(await settled).toBe(reason);
    expect(retrieve).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('passes a signal to retrieve that aborts with the caller', async () => {
    const controller = new AbortController();
    let received: AbortSignal | undefined;
    const result = pollUntil({
      ...common,
      intervalMs: 1000,
      signal: controller.signal,
      retrieve: (signal) => {
        received = signal;
        return new Promise<Job>((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
        );
      },
    });
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(result).rejects.toBe(reason);
    expect(received?.aborted).toBe(true);
  });
});
