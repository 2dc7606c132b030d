import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createWaitSecondsSchema, type WaitExtra, waitForJob, waitSecondsSchema } from './wait-for-job.js';

interface FakeJob {
  status: string;
  progress: number;
}

function createExtra(options: { progressToken?: string | number } = {}) {
  const controller = new AbortController();
  const notifications: ServerNotification[] = [];
  const extra: WaitExtra = {
    signal: controller.signal,
    sendNotification: async (notification) => {
      notifications.push(notification);
    },
    ...(options.progressToken !== undefined ? { _meta: { progressToken: options.progressToken } } : {}),
  };
  return { extra, controller, notifications };
}

/** A job that walks through the given states, one per poll, then stays on the last. */
function scriptedPoll(states: FakeJob[]) {
  let calls = 0;
  const poll = vi.fn(async () => states[Math.min(calls++, states.length - 1)] as FakeJob);
  return poll;
}

const describeJob = (job: FakeJob) => ({ status: job.status, progress: job.progress });
const isDone = (job: FakeJob) => job.status === 'COMPLETED';

describe('waitForJob', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('polls at once, then every interval, and sends progress notifications when given a token', async () => {
    const { extra, notifications } = createExtra({ progressToken: 'tok-1' });
    const poll = scriptedPoll([
      { status: 'PENDING', progress: 0 },
      { status: 'TRANSCRIBING', progress: 45 },
      { status: 'COMPLETED', progress: 100 },
    ]);
    const promise = waitForJob({
      extra,
      waitSeconds: 40,
      intervalMs: 1000,
      poll,
      isDone,
      describe: describeJob,
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(poll).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(poll).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(poll).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1000);
    const result = await promise;
    expect(result).toEqual({ done: true, job: { status: 'COMPLETED', progress: 100 } });
    expect(notifications.map((notification) => notification.params)).toEqual([
      { progressToken: 'tok-1', progress: 0, total: 100, message: 'PENDING 0%' },
      { progressToken: 'tok-1', progress: 45, total: 100, message: 'TRANSCRIBING 45%' },
      { progressToken: 'tok-1', progress: 100, total: 100, message: 'COMPLETED 100%' },
    ]);
    expect(notifications.every((notification) => notification.method === 'notifications/progress')).toBe(
      true,
    );
  });

  it('sends no progress notification when the client gave no progress token', async () => {
    const { extra, notifications } = createExtra();
    const poll = scriptedPoll([
      { status: 'TRANSCRIBING', progress: 10 },
      { status: 'COMPLETED', progress: 100 },
    ]);
    const promise = waitForJob({
      extra,
      waitSeconds: 10,
      intervalMs: 500,
      poll,
      isDone,
      describe: describeJob,
    });
    await vi.advanceTimersByTimeAsync(500);
    expect((await promise).done).toBe(true);
    expect(notifications).toEqual([]);
  });

  it('never sends a progress value that does not increase', async () => {
    const { extra, notifications } = createExtra({ progressToken: 7 });
    const poll = scriptedPoll([
      { status: 'TRANSCRIBING', progress: 30 },
      { status: 'TRANSCRIPT_READY', progress: 30 },
      { status: 'TRANSLATING', progress: 20 },
      { status: 'COMPLETED', progress: 100 },
    ]);
    const promise = waitForJob({
      extra,
      waitSeconds: 10,
      intervalMs: 100,
      poll,
      isDone,
      describe: describeJob,
    });
    await vi.advanceTimersByTimeAsync(300);
    await promise;
    expect(
      notifications.map((notification) => (notification.params as { progress: number }).progress),
    ).toEqual([30, 100]);
  });

  it('returns done:false with the last job when waitSeconds run out', async () => {
    const { extra } = createExtra({ progressToken: 'x' });
    const poll = scriptedPoll([{ status: 'TRANSCRIBING', progress: 50 }]);
    const promise = waitForJob({
      extra,
      waitSeconds: 3,
      intervalMs: 1000,
      poll,
      isDone,
      describe: describeJob,
    });
    let settled = false;
    void promise.then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(2999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await promise).toEqual({ done: false, job: { status: 'TRANSCRIBING', progress: 50 } });
    // At 0, 1, 2 and 3 s: the last look happens at the deadline itself.
    expect(poll).toHaveBeenCalledTimes(4);
  });

  it('with waitSeconds 0 polls exactly once', async () => {
    const { extra } = createExtra();
    const poll = scriptedPoll([{ status: 'PENDING', progress: 0 }]);
    const result = await waitForJob({
      extra,
      waitSeconds: 0,
      intervalMs: 1000,
      poll,
      isDone,
      describe: describeJob,
    });
    expect(result.done).toBe(false);
    expect(poll).toHaveBeenCalledTimes(1);
  });

  it('stops at once when the client cancels, rethrowing the abort reason', async () => {
    const { extra, controller } = createExtra();
    const poll = scriptedPoll([{ status: 'TRANSCRIBING', progress: 5 }]);
    const promise = waitForJob({
      extra,
      waitSeconds: 40,
      intervalMs: 5000,
      poll,
      isDone,
      describe: describeJob,
    });
    const outcome = promise.then(
      () => 'resolved',
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(100);
    const reason = new Error('client cancelled');
    controller.abort(reason);
    await vi.advanceTimersByTimeAsync(0);
    expect(await outcome).toBe(reason);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(poll).toHaveBeenCalledTimes(1);
  });

  it('caps the wait at 50 s whatever waitSeconds says', async () => {
    const { extra } = createExtra();
    const poll = scriptedPoll([{ status: 'TRANSCRIBING', progress: 5 }]);
    const promise = waitForJob({
      extra,
      waitSeconds: 600,
      intervalMs: 10_000,
      poll,
      isDone,
      describe: describeJob,
    });
    await vi.advanceTimersByTimeAsync(50_000);
    expect((await promise).done).toBe(false);
  });
});

describe('waitSecondsSchema', () => {
  it('defaults to 40 and refuses more than 50', () => {
    expect(waitSecondsSchema.parse(undefined)).toBe(40);
    expect(waitSecondsSchema.safeParse(51).success).toBe(false);
    expect(waitSecondsSchema.safeParse(-1).success).toBe(false);
    expect(createWaitSecondsSchema(0).parse(undefined)).toBe(0);
    expect(waitSecondsSchema.description).toMatch(/50/);
  });
});
