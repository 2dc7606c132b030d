/**
 * What the media tools read, tried as an attacker and a careless agent would: the directory of a video
 * swapped for a link to an outside one while create_flashcards waits to retry, a FIFO, and media whose
 * first bytes are right but whose inside is junk or cut short. Nothing from outside is uploaded, and bad
 * files cost no request at all.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { until } from '@polymodal/mcp-common/testing';
import { readMediaFixture } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MediaHarness, startMediaHarness } from './support/harness.js';

const FLASHCARDS = '/api/video-flashcards/v1';
const DIRECTION = { learningDirection: 'thai_to_chinese' };

let harness: MediaHarness;
let outside: string;
beforeAll(async () => {
  harness = await startMediaHarness();
  outside = await mkdtemp(path.join(os.tmpdir(), 'mcp-media-outside-'));
});
afterAll(async () => {
  await harness?.close();
  await rm(outside, { recursive: true, force: true });
});

/** GET with the key, as the platform serves it to the key's owner. */
async function platformGet(url: string): Promise<Response> {
  const response = await fetch(new URL(url, harness.sandbox.url), {
    headers: { 'x-api-key': harness.sandbox.apiKey },
  });
  expect(response.status, url).toBe(200);
  return response;
}

/** The number of requests the sandbox has seen, to show that a refusal sent none. */
const requestCount = () => harness.sandbox.control.requests().length;

describe('create_flashcards reads only the video it checked', () => {
  it('sends the original on the retry after a 503, though the directory became an outside link meanwhile', async () => {
    const videos = path.join(harness.root, 'videos');
    await mkdir(videos);
    const original = readMediaFixture('mp4');
    // Another valid MP4 (a trailing free box), so that the sandbox would take it as readily.
    const free = Buffer.concat([
      Buffer.from([0, 0, 0, 24]),
      Buffer.from('free', 'latin1'),
      Buffer.alloc(16, 7),
    ]);
    const intruder = Buffer.concat([original, free]);
    await writeFile(path.join(videos, 'lesson.mp4'), original);
    await writeFile(path.join(outside, 'lesson.mp4'), intruder);
    harness.sandbox.control.setFaults([
      {
        match: { method: 'POST', path: `${FLASHCARDS}/jobs$` },
        kind: 'status',
        status: 503,
        retryAfter: '1',
        count: 1,
      },
    ]);
    const call = harness.call('create_flashcards', {
      video: path.join(videos, 'lesson.mp4'),
      ...DIRECTION,
      waitSeconds: 30,
    });
    const starts = () => harness.sandbox.control.requests({ method: 'POST', path: `${FLASHCARDS}/jobs$` });
    await until(() => starts()[0]?.status === 503);
    await rename(videos, path.join(harness.root, 'videos-moved'));
    await symlink(outside, videos);
    const result = await call;
    harness.sandbox.control.clearFaults();

    expect(result.isError, result.text).toBe(false);
    expect(starts()).toHaveLength(2);
    const job = (await (await platformGet(`${FLASHCARDS}/jobs/${result.structured.jobId}`)).json()) as {
      result: { media: { original_video_url: string } };
    };
    // The platform serves back the video it received: byte for byte the one that was checked.
    const received = Buffer.from(
      await (await platformGet(job.result.media.original_video_url)).arrayBuffer(),
    );
    expect(received.length).toBe(original.length);
    expect(received.equals(original)).toBe(true);
  });

  it('refuses a FIFO at once with no request, and the server keeps serving', async () => {
    const fifo = path.join(harness.root, 'stream.mp4');
    execFileSync('mkfifo', [fifo]);
    const before = requestCount();
    const refused = await harness.call('create_flashcards', { video: fifo, ...DIRECTION, waitSeconds: 0 });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/stream\.mp4 is a named pipe/);
    expect(requestCount()).toBe(before);

    await writeFile(path.join(harness.root, 'after-fifo.mp4'), readMediaFixture('mp4'));
    const next = await harness.call('create_flashcards', {
      video: path.join(harness.root, 'after-fifo.mp4'),
      ...DIRECTION,
      newJob: true,
      waitSeconds: 0,
    });
    expect(next.isError, next.text).toBe(false);
  });

  it('refuses an ftyp followed by junk, and a video cut short, with no request', async () => {
    const ftyp = Buffer.concat([Buffer.from([0, 0, 0, 20]), Buffer.from('ftypisom\0\0\x02\0isom', 'latin1')]);
    const sample = readMediaFixture('mp4');
    const cases: [string, Buffer, RegExp][] = [
      [
        'junk.mp4',
        Buffer.concat([ftyp, Buffer.from('not a movie at all '.repeat(300), 'latin1')]),
        /junk\.mp4 is damaged or cut short: its MP4 boxes cannot be read/,
      ],
      ['half.mp4', sample.subarray(0, Math.floor(sample.length / 2)), /half\.mp4 is damaged or cut short/],
      ['header-only.mp4', ftyp, /header-only\.mp4 has no playable movie: no "moov" box with a duration/],
    ];
    const before = requestCount();
    for (const [name, content, problem] of cases) {
      await writeFile(path.join(harness.root, name), content);
      const result = await harness.call('create_flashcards', {
        video: path.join(harness.root, name),
        ...DIRECTION,
        waitSeconds: 0,
      });
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(problem);
      expect(result.text).toContain('Nothing was sent.');
    }
    expect(requestCount()).toBe(before);
  });
});

describe('image_to_video reads the whole image before paying for a video', () => {
  it('refuses a truncated PNG and a truncated JPEG with no request', async () => {
    const png = readMediaFixture('png');
    const jpg = readMediaFixture('jpg');
    const cases: [string, Buffer, RegExp][] = [
      ['cut.png', png.subarray(0, png.length - 16), /cut\.png is cut short/],
      ['cut.jpg', jpg.subarray(0, Math.floor(jpg.length * 0.7)), /cut\.jpg is cut short/],
    ];
    const before = requestCount();
    for (const [name, content, problem] of cases) {
      await writeFile(path.join(harness.root, name), content);
      const result = await harness.call('image_to_video', {
        prompt: 'the cat slowly turns its head',
        image: path.join(harness.root, name),
        waitSeconds: 0,
      });
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(problem);
      expect(result.text).toContain('Nothing was sent.');
    }
    expect(requestCount()).toBe(before);
  });

  it('refuses a truncated image given inline as a data URL with no request', async () => {
    const png = readMediaFixture('png');
    const before = requestCount();
    const result = await harness.call('image_to_video', {
      prompt: 'the cat slowly turns its head',
      image: `data:image/png;base64,${png.subarray(0, png.length - 16).toString('base64')}`,
      waitSeconds: 0,
    });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/holds an image that is cut short/);
    expect(requestCount()).toBe(before);
  });

  it('refuses a FIFO given as the image at once, and a whole image still goes through', async () => {
    const fifo = path.join(harness.root, 'camera.png');
    execFileSync('mkfifo', [fifo]);
    const before = requestCount();
    const refused = await harness.call('image_to_video', { prompt: 'go', image: fifo, waitSeconds: 0 });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/camera\.png is a named pipe/);
    expect(requestCount()).toBe(before);

    await writeFile(path.join(harness.root, 'whole.png'), readMediaFixture('png'));
    const next = await harness.call('image_to_video', {
      prompt: 'the cat slowly turns its head',
      image: path.join(harness.root, 'whole.png'),
      waitSeconds: 0,
    });
    expect(next.isError, next.text).toBe(false);
  });
});
