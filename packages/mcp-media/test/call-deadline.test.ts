/**
 * One deadline per tool call: a tool that starts paid work and then waits answers within its deadline
 * however long the start took. The wait used to get a fresh deadline of its own after the start, so a slow
 * start plus the wait could outlast the host's limit (start + up to 50 s more).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { readMediaFixture } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MediaHarness, startMediaHarness } from './support/harness.js';

/** The tool deadline of this file's calls, and how long the platform takes to answer each start. */
const DEADLINE_SECONDS = 5;
const START_LATENCY_MS = 4_000;

let harness: MediaHarness;

beforeAll(async () => {
  harness = await startMediaHarness();
  await writeFile(path.join(harness.root, 'cat.png'), readMediaFixture('png'));
  await writeFile(path.join(harness.root, 'lesson.mp4'), readMediaFixture('mp4'));
});
afterAll(async () => {
  await harness?.close();
});

describe('a paid start and its wait share the call deadline', () => {
  it.each([
    [
      'generate_video',
      '/api/modelhub/v1/videos/generations$',
      { model: 'text-to-video-lite', prompt: 'A lantern drifting at dusk', duration: 5 },
    ],
    ['image_to_video', '/api/imgvid/v1/videos/generations$', { image: 'cat.png', prompt: 'The cat blinks' }],
    [
      'create_flashcards',
      '/api/video-flashcards/v1/jobs$',
      { video: 'lesson.mp4', learningDirection: 'thai_to_chinese' },
    ],
  ])('%s with a slow start answers with a handle within its deadline', async (tool, startPath, args) => {
    const connection = await harness.connect({ POLYMODAL_TOOL_DEADLINE_SECONDS: String(DEADLINE_SECONDS) });
    // The job stays running: only the deadline can end this call before waitSeconds.
    harness.sandbox.control.holdClock();
    harness.sandbox.control.setFaults([
      { match: { method: 'POST', path: startPath }, kind: 'latency', latencyMs: START_LATENCY_MS },
    ]);
    try {
      const resolved = Object.fromEntries(
        Object.entries(args).map(([key, value]) => [
          key,
          key === 'image' || key === 'video' ? path.join(harness.root, String(value)) : value,
        ]),
      );
      const startedAt = Date.now();
      const result = await connection.call(tool, { ...resolved, waitSeconds: 40 });
      const elapsed = Date.now() - startedAt;
      expect(result.isError, result.text).toBe(false);
      expect(result.structured).toMatchObject({ done: false, next: expect.stringMatching(/call get_/) });
      // Within the deadline and a margin for a loaded machine; a second deadline after the start let the
      // call run for the start and then a whole deadline more (7.3–9.2 s here before the fix).
      expect(elapsed).toBeLessThan(DEADLINE_SECONDS * 1000 + 2_000);
    } finally {
      harness.sandbox.control.setFaults([]);
      harness.sandbox.control.releaseClock();
      await connection.close();
    }
  });
});
