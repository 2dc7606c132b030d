/**
 * Nothing paid for is done twice and no call outlives its deadline, at the MCP tool level against the
 * sandbox: what the sandbox saw (uploads, jobs, the arrival time of every read) is what is asserted.
 * The sandbox clock is held where a job must still be running, so no assertion races the wall clock.
 */
import { createPlatformContext } from '@polymodal/mcp-common/host';
import { connectInMemory } from '@polymodal/mcp-common/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from '../src/server.js';
import { type Harness, startHarness } from './support/harness.js';

const API = '/api/conference-summary/v1';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Arrival times (ms) of the GETs of one job, in order. */
function readsOf(h: Harness, jobId: string): number[] {
  return h.sandbox.control
    .requests({ method: 'GET', path: `${API}/jobs/${jobId}$` })
    .map((request) => request.at);
}

function gaps(times: number[]): number[] {
  return times.slice(1).map((time, index) => time - (times[index] ?? time));
}

describe('paid work exactly once', () => {
  it('503 ×8 on the status read of a recorded job: the same job is resumed, nothing uploaded again', async () => {
    const h = await startHarness({ clock: 'held' });
    harness = h;
    const file = await h.writeRecording('weekly.wav');
    const first = await h.call('summarize_meeting', { path: file, waitSeconds: 0 });
    expect(first.isError, first.text).toBe(false);
    const jobId = first.structured.jobId as string;

    // A restarted server (new process state, same ledger) while the platform answers 503 to the job's reads.
    h.sandbox.control.setFaults([
      { match: { method: 'GET', path: `${API}/jobs/${jobId}$` }, kind: 'status', status: 503, count: 8 },
    ]);
    const restarted = await h.connectAs(h.sandbox.apiKey);
    try {
      const again = await restarted.call('summarize_meeting', { path: file, waitSeconds: 0 });
      expect(again.isError, again.text).toBe(false);
      expect(again.structured).toMatchObject({ jobId, resumed: true, done: false });
    } finally {
      await restarted.close();
    }
    // A call that asked not to wait reads a failing job at most twice (the resume check, then the answer's
    // one attempt), however slowly its failures are noted: the first call's read plus those two.
    expect(readsOf(h, jobId).length).toBeLessThanOrEqual(3);
    const counters = h.sandbox.control.counters();
    expect(counters.uploads[h.userId]).toBe(1);
    expect(counters.jobsCreated[h.userId]).toBe(1);
  });

  it('a DELETE answered 503 five times is an error, and the recording is still there', async () => {
    const h = await startHarness();
    harness = h;
    const file = await h.writeRecording('keep.wav');
    const done = await h.call('summarize_meeting', { path: file, waitSeconds: 20 });
    const jobId = done.structured.jobId as string;
    expect(done.structured.status).toBe('COMPLETED');
    h.sandbox.control.setFaults([
      { match: { method: 'DELETE', path: `${API}/jobs/${jobId}$` }, kind: 'status', status: 503, count: 5 },
    ]);
    const deleted = await h.call('delete_meeting', { jobId, confirm: true });
    expect(deleted.isError).toBe(true);
    expect(deleted.text).toMatch(/503/);
    h.sandbox.control.clearFaults();
    const still = await h.call('get_meeting', { jobId, include: ['summary'] });
    expect(still.structured).toMatchObject({ jobId, status: 'COMPLETED' });
  });

  it('identical concurrent calls in one process: one upload, one job, one answer for all', async () => {
    const h = await startHarness({ clock: 'held' });
    harness = h;
    const file = await h.writeRecording('parallel.wav');
    const results = await Promise.all(
      Array.from({ length: 5 }, () => h.call('summarize_meeting', { path: file, waitSeconds: 0 })),
    );
    for (const result of results) expect(result.isError, result.text).toBe(false);
    expect(new Set(results.map((result) => result.structured.jobId)).size).toBe(1);
    const counters = h.sandbox.control.counters();
    expect(counters.uploads[h.userId]).toBe(1);
    expect(counters.jobsCreated[h.userId]).toBe(1);
  });
});

describe('every wait bounded', () => {
  it('waitSeconds 2 while every read gets 429 Retry-After: 20 answers within 5 s with a handle', async () => {
    const h = await startHarness({ clock: 'held', pollIntervalMs: 500 });
    harness = h;
    const file = await h.writeRecording('busy.wav');
    h.sandbox.control.setFaults([
      { match: { method: 'GET', path: `${API}/jobs/[^/]+$` }, kind: 'status', status: 429, retryAfter: '20' },
    ]);
    const startedAt = Date.now();
    const result = await h.call('summarize_meeting', { path: file, waitSeconds: 2 });
    const elapsed = Date.now() - startedAt;
    expect(result.isError, result.text).toBe(false);
    expect(result.structured).toMatchObject({ done: false, next: expect.stringMatching(/get_meeting/) });
    expect(result.structured.jobId).toEqual(expect.any(String));
    // The wait (2 s) plus a busy machine's delays, far below the Retry-After (20 s) it would otherwise obey.
    expect(elapsed).toBeLessThan(5_000);

    // The continuation obeys its bound too, and sends no read before the Retry-After.
    const readsBefore = readsOf(h, result.structured.jobId as string).length;
    const continued = Date.now();
    const next = await h.call('get_meeting', { jobId: result.structured.jobId, waitSeconds: 2 });
    expect(Date.now() - continued).toBeLessThan(5_000);
    expect(next.isError, next.text).toBe(false);
    expect(next.structured).toMatchObject({ done: false });
    expect(readsOf(h, result.structured.jobId as string)).toHaveLength(readsBefore);
  });

  it('a status read that never answers: get_meeting answers within its deadline + 2 s with a handle', async () => {
    const h = await startHarness({ clock: 'held', toolDeadlineSeconds: 3 });
    harness = h;
    const file = await h.writeRecording('silent.wav');
    const started = await h.call('summarize_meeting', { path: file, waitSeconds: 0 });
    const jobId = started.structured.jobId as string;
    h.sandbox.control.setFaults([{ match: { method: 'GET', path: `${API}/jobs/${jobId}$` }, kind: 'hang' }]);
    // Past the (test) poll interval, so the job must be read again rather than the last read reused.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const startedAt = Date.now();
    const result = await h.call('get_meeting', { jobId, waitSeconds: 0 });
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    expect(result.isError, result.text).toBe(false);
    expect(result.structured).toMatchObject({
      jobId,
      done: false,
      next: expect.stringMatching(/get_meeting/),
    });
    expect(result.text).toMatch(/could not be read within this call/);
  });

  it('a finished job that cannot be read right now is answered with its recorded status, not UNKNOWN', async () => {
    const h = await startHarness({ clock: 'held', toolDeadlineSeconds: 3 });
    harness = h;
    const file = await h.writeRecording('finished.wav');
    const started = await h.call('summarize_meeting', { path: file, waitSeconds: 0 });
    const jobId = started.structured.jobId as string;
    h.sandbox.control.advance(30 * 60 * 1000);
    const seen = await h.call('get_meeting', { jobId, waitSeconds: 10 });
    expect(seen.structured).toMatchObject({ status: 'COMPLETED', done: true });
    // Then the platform stops answering reads of it.
    h.sandbox.control.setFaults([{ match: { method: 'GET', path: `${API}/jobs/${jobId}$` }, kind: 'hang' }]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const result = await h.call('get_meeting', { jobId, waitSeconds: 0 });
    expect(result.isError, result.text).toBe(false);
    expect(result.structured).toMatchObject({ jobId, status: 'COMPLETED', done: false });
    expect(result.text).toMatch(
      /could not be read within this call \(last known status: COMPLETED, as last recorded\); it stays recorded/,
    );
    expect(result.text).not.toMatch(/keeps running/);
  });

  it('reads of one job stay an interval apart across summarize → get → cancel → get → delete', async () => {
    const interval = 300;
    const h = await startHarness({ clock: 'held', pollIntervalMs: interval });
    harness = h;
    const file = await h.writeRecording('sequence.wav');
    const summarized = await h.call('summarize_meeting', { path: file, waitSeconds: 1 });
    const jobId = summarized.structured.jobId as string;
    expect(summarized.structured).toMatchObject({ done: false });
    await h.call('get_meeting', { jobId });
    await h.call('get_meeting', { jobId, waitSeconds: 1 });
    const cancelled = await h.call('cancel_meeting', { jobId });
    expect(cancelled.structured).toMatchObject({ status: 'CANCELLED', done: true, outcome: 'cancelled' });
    await h.call('get_meeting', { jobId });
    const deleted = await h.call('delete_meeting', { jobId });
    expect(deleted.structured).toMatchObject({ deleted: false, status: 'CANCELLED' });

    const reads = readsOf(h, jobId);
    expect(reads.length).toBeGreaterThanOrEqual(3);
    for (const gap of gaps(reads)) expect(gap).toBeGreaterThanOrEqual(interval);
  });

  it('status answers that ask for a longer pause than the interval (Retry-After on a 200) are waited out, across calls and servers', async () => {
    const h = await startHarness({ clock: 'held', pollIntervalMs: 50 });
    harness = h;
    const file = await h.writeRecording('paced.wav');
    // Every status read is answered normally, with Retry-After: 1 (twenty intervals).
    h.sandbox.control.setFaults([
      {
        match: { method: 'GET', path: `${API}/jobs/[^/]+$` },
        kind: 'latency',
        latencyMs: 0,
        retryAfter: '1',
      },
    ]);
    const started = await h.call('summarize_meeting', { path: file, waitSeconds: 2 });
    const jobId = started.structured.jobId as string;
    expect(started.structured).toMatchObject({ done: false });
    await h.call('get_meeting', { jobId, waitSeconds: 2 });
    const restarted = await h.connectAs(h.sandbox.apiKey);
    try {
      await restarted.call('get_meeting', { jobId, waitSeconds: 2 });
    } finally {
      await restarted.close();
    }
    const log = h.sandbox.control.requests({ method: 'GET', path: `${API}/jobs/${jobId}$` });
    expect(log.length).toBeGreaterThanOrEqual(3);
    for (let index = 1; index < log.length; index++) {
      const previous = log[index - 1]!;
      expect(previous.retryAfterSeconds).toBe(1);
      expect(log[index]!.at - previous.at).toBeGreaterThanOrEqual(1_000);
    }
  });

  it('no read of a job before the Retry-After the platform gave', async () => {
    const h = await startHarness({ clock: 'held', pollIntervalMs: 100 });
    harness = h;
    const file = await h.writeRecording('retry-after.wav');
    h.sandbox.control.setFaults([
      {
        match: { method: 'GET', path: `${API}/jobs/[^/]+$` },
        kind: 'status',
        status: 429,
        retryAfter: '1',
        count: 1,
      },
    ]);
    const result = await h.call('summarize_meeting', { path: file, waitSeconds: 3 });
    const jobId = result.structured.jobId as string;
    const log = h.sandbox.control.requests({ method: 'GET', path: `${API}/jobs/${jobId}$` });
    const limited = log.findIndex((request) => request.status === 429);
    expect(limited).toBeGreaterThanOrEqual(0);
    const after = log[limited + 1];
    expect(after).toBeDefined();
    expect((after?.at ?? 0) - (log[limited]?.at ?? 0)).toBeGreaterThanOrEqual(1_000);
  });
});

describe('one read answers every call that waits for it', () => {
  it('get_meeting of a finished job, asked not to wait while another call of the same server reads it, answers with that read', async () => {
    const interval = 1_000;
    const h = await startHarness({ pollIntervalMs: interval });
    harness = h;
    const file = await h.writeRecording('finished.wav');
    const finished = await h.call('summarize_meeting', { path: file, waitSeconds: 30 });
    const jobId = finished.structured.jobId as string;
    expect(finished.structured).toMatchObject({ status: 'COMPLETED', done: true });
    const readsBefore = readsOf(h, jobId).length;

    // A second server on the same ledger whose first look at the job is slow (a loaded disk): it has read
    // the entry, and answers only once the test lets it.
    const context = createPlatformContext({ env: h.env });
    const ledger = context.ledger;
    const findById = ledger.findById.bind(ledger);
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding = false;
    ledger.findById = async (service, id) => {
      const entry = await findById(service, id);
      if (id !== jobId || holding) return entry;
      holding = true;
      await released;
      return entry;
    };
    const server = await connectInMemory(createServer({ platform: context }), {
      secrets: [h.sandbox.apiKey],
    });
    try {
      const slow = server.call('get_meeting', { jobId, include: ['summary'], waitSeconds: 0 });
      while (!holding) await new Promise((resolve) => setTimeout(resolve, 10));
      // Meanwhile another call reads the job (within one interval of the first server's last read).
      const fast = await server.call('get_meeting', { jobId, include: ['summary'], waitSeconds: 0 });
      expect(fast.structured).toMatchObject({ jobId, status: 'COMPLETED', done: true });
      release();
      const answer = await slow;
      expect(answer.isError, answer.text).toBe(false);
      // The read just made, not "UNKNOWN, still running" about a finished meeting.
      expect(answer.structured).toMatchObject({
        jobId,
        status: 'COMPLETED',
        done: true,
        outcome: 'succeeded',
      });
      // And not a second read of it either: the sandbox saw one read for the two calls.
      expect(readsOf(h, jobId)).toHaveLength(readsBefore + 1);
    } finally {
      await server.close();
      await context.close();
    }
  });
});
