/**
 * The platform's Retry-After on status answers, at the tool level against the sandbox: no status read of a
 * video job or a speech task comes sooner than the pause the answer before it asked for, within a call,
 * in the calls that follow a handle, and in another server on the same ledger (a restart). Read times are
 * the sandbox's request log; each answer's Retry-After is logged beside it.
 */
import type { LoggedRequest } from '@polymodal/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import { type MediaHarness, startMediaHarness } from './support/harness.js';

let harness: MediaHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Every read after an answer that carried Retry-After came at least that long after it. */
function expectPacedReads(log: LoggedRequest[]): void {
  const byPath = new Map<string, LoggedRequest[]>();
  for (const request of log) byPath.set(request.path, [...(byPath.get(request.path) ?? []), request]);
  for (const reads of byPath.values()) {
    for (let index = 1; index < reads.length; index++) {
      const previous = reads[index - 1]!;
      const gap = reads[index]!.at - previous.at;
      expect(gap, `${previous.path} read ${index}`).toBeGreaterThanOrEqual(
        (previous.retryAfterSeconds ?? 0) * 1000,
      );
    }
  }
}

describe('status reads never come sooner than the Retry-After of the answer before', () => {
  it('video: answers that ask for 1 s (twenty intervals) are waited out, after a handle and after a restart', async () => {
    harness = await startMediaHarness({ pollIntervalMs: 50 });
    harness.sandbox.control.holdClock();
    harness.sandbox.control.setFaults([
      { match: { method: 'GET', path: '/videos/[^/]+$' }, kind: 'latency', latencyMs: 0, retryAfter: '1' },
    ]);
    const started = await harness.call('generate_video', {
      model: 'hub:text-to-video-lite',
      prompt: 'A lighthouse at dawn',
      waitSeconds: 2,
    });
    expect(started.isError, started.text).toBe(false);
    expect(started.structured.done).toBe(false);
    const jobId = started.structured.jobId as string;
    await harness.call('get_video_job', { jobId, waitSeconds: 2 });
    const restarted = await harness.connect();
    try {
      await restarted.call('get_video_job', { jobId, waitSeconds: 2 });
    } finally {
      await restarted.close();
    }
    const reads = harness.sandbox.control.requests({ method: 'GET', path: '/videos/[^/]+$' });
    expect(reads.length).toBeGreaterThanOrEqual(3);
    expect(reads.every((read) => read.retryAfterSeconds === 1)).toBe(true);
    expectPacedReads(reads);
  });

  it('speech: tasks whose status answers ask for 2 s are read no sooner, after a handle and after a restart', async () => {
    harness = await startMediaHarness({
      speed: 1,
      config: { media: { speechSynthesis: { statusRetryAfterSeconds: 2 } } },
    });
    // Two parts of about 150 characters: each is unfinished for several seconds at speed 1.
    const sentence = `This part of the notes is long enough ${'to fill most of one part '.repeat(4)}on its own.`;
    const text = `${sentence} ${sentence.replace('This', 'That')}`;
    const started = await harness.call('synthesize_speech', { text, waitSeconds: 1 });
    expect(started.isError, started.text).toBe(false);
    const jobId = started.structured.jobId as string;
    await harness.call('get_speech', { jobId, waitSeconds: 3 });
    const restarted = await harness.connect();
    try {
      const done = await restarted.call('synthesize_speech', { text, waitSeconds: 30 });
      expect(done.isError, done.text).toBe(false);
      expect(done.structured.done).toBe(true);
    } finally {
      await restarted.close();
    }
    const reads = harness.sandbox.control.requests({ method: 'GET', path: '/audio/speech/[^/]+$' });
    expect(reads.filter((read) => read.retryAfterSeconds === 2).length).toBeGreaterThanOrEqual(4);
    expectPacedReads(reads);
    // Each part was paid for once.
    expect(harness.sandbox.control.requests({ method: 'POST', path: '/audio/speech$' })).toHaveLength(2);
  });
});
