/**
 * Identical paid requests arriving at the same time are paid once, at the MCP tool level against the
 * sandbox: the sandbox's request log counts the job-creating POSTs. Also: a new flashcards job asked for
 * on purpose is a new job, and clip URLs come back absolute.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { readMediaFixture } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MediaHarness, startMediaHarness } from './support/harness.js';

let harness: MediaHarness;
beforeAll(async () => {
  harness = await startMediaHarness();
  await writeFile(path.join(harness.root, 'lesson.mp4'), readMediaFixture('mp4'));
});
afterAll(() => harness.close());

const posts = (pathPattern: string) =>
  harness.sandbox.control.requests({ method: 'POST', path: pathPattern }).length;

describe('identical paid requests at the same time', () => {
  it('generate_video twice at once: one POST, one job, both answered with it', async () => {
    const before = posts('/videos/generations$');
    const args = { model: 'text-to-video-lite', prompt: 'Two calls, one boat', duration: 5, waitSeconds: 30 };
    const [first, second] = await Promise.all([
      harness.call('generate_video', args),
      harness.call('generate_video', args),
    ]);
    expect(first.isError, first.text).toBe(false);
    expect(second.isError, second.text).toBe(false);
    expect(second.structured.jobId).toBe(first.structured.jobId);
    expect(posts('/videos/generations$') - before).toBe(1);
  });

  it('create_flashcards twice at once: one upload and one job', async () => {
    const before = posts('/api/video-flashcards/v1/jobs$');
    const args = {
      video: path.join(harness.root, 'lesson.mp4'),
      learningDirection: 'thai_to_chinese',
      waitSeconds: 30,
    };
    const [first, second] = await Promise.all([
      harness.call('create_flashcards', args),
      harness.call('create_flashcards', args),
    ]);
    expect(first.isError, first.text).toBe(false);
    expect(second.structured.jobId).toBe(first.structured.jobId);
    expect(posts('/api/video-flashcards/v1/jobs$') - before).toBe(1);
  });

  it('create_flashcards with newJob=true starts a new job (a fresh idempotency key), with absolute clip URLs', async () => {
    const args = {
      video: path.join(harness.root, 'lesson.mp4'),
      learningDirection: 'chinese_to_thai',
      includeOriginalSegments: true,
      waitSeconds: 30,
    };
    const first = await harness.call('create_flashcards', args);
    const anew = await harness.call('create_flashcards', { ...args, newJob: true });
    expect(first.isError, first.text).toBe(false);
    expect(anew.isError, anew.text).toBe(false);
    expect(anew.structured.resumed ?? false).toBe(false);
    expect(anew.structured.jobId).not.toBe(first.structured.jobId);

    const clips = (anew.structured.segments as Array<{ clipUrl: string | null }>)
      .map((segment) => segment.clipUrl)
      .filter((url): url is string => url !== null);
    expect(clips.length).toBeGreaterThan(0);
    for (const url of clips) expect(url.startsWith(`${harness.sandbox.url}/`)).toBe(true);
  });

  it('get_video_job saves under the file name the starting call asked for (kept with the job)', async () => {
    harness.sandbox.control.holdClock();
    const started = await harness.call('generate_video', {
      model: 'text-to-video-lite',
      prompt: 'A kite over the dunes',
      duration: 5,
      fileName: 'kite-over-dunes',
      waitSeconds: 0,
    });
    harness.sandbox.control.releaseClock();
    expect(started.isError, started.text).toBe(false);
    expect(started.structured.done).toBe(false);
    const finished = await harness.call('get_video_job', {
      jobId: started.structured.jobId,
      waitSeconds: 30,
    });
    expect(finished.isError, finished.text).toBe(false);
    expect(path.basename(finished.structured.savedPath as string)).toBe('kite-over-dunes.mp4');
  });
});
