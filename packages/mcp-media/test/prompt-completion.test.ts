/**
 * Completion of the media prompts' arguments, against the sandbox: the catalog's text-to-video models (read
 * free of charge, once), the voices the caller registered (from its ledger, newest first), a local video
 * among the readable files, and the learning directions and speech languages from their lists.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { LEARNING_DIRECTIONS, TTS_LANGUAGES } from '@polymodal/core/constants';
import { createJobLedger } from '@polymodal/core/ledger';
import { completionOf, connectInProcess, GENERATIONS, useServerEnv } from '@polymodal/mcp-common/testing';
import { CATALOG_MODELS } from '@polymodal/sandbox';
import { beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../src/server.js';

const started = useServerEnv({ name: 'mcp-media-completion-', sandbox: true });
const { env } = started;

beforeAll(async () => {
  const lessons = path.join(env.POLYMODAL_ALLOWED_DIRS as string, 'lessons');
  await mkdir(lessons, { recursive: true });
  for (const name of ['week1.mp4', 'week2.mkv', 'notes.txt', 'song.mp3']) {
    await writeFile(path.join(lessons, name), 'x');
  }
  // Two voices, as register_voice leaves them in the ledger, the second registered a minute later.
  const ledger = createJobLedger({ dir: path.join(env.POLYMODAL_STATE_DIR as string, 'jobs') });
  for (const [minute, name] of [
    [1, 'anna'],
    [2, 'bao'],
  ] as const) {
    await ledger.insert({
      service: 'custom-voice',
      fingerprint: `voice-${name}`,
      id: `voice-${name}`,
      lastStatus: 'REGISTERED',
      createdAt: new Date(Date.UTC(2026, 10, 2, 9, minute)).toISOString(),
      request: { voice: { clone_audio: `custom_voices/${name}.wav`, voice: { id: `voice-${name}` } } },
    });
  }
});

describe.each(GENERATIONS)('completing the media prompts, %s', (generation) => {
  const connect = () => connectInProcess(generation, createServer, { env, secrets: [] });

  it("offers the catalog's models that make a video from text alone", async () => {
    const server = await connect();
    try {
      const textOnly = CATALOG_MODELS.filter((model) => model.category === 'text-to-video').map(
        (model) => model.id,
      );
      expect(textOnly.length).toBeGreaterThan(0);
      expect((await completionOf(server.client, 'make_video', 'model', '')).values).toEqual(textOnly);
      expect((await completionOf(server.client, 'make_video', 'model', 'hub:image')).values).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('offers the registered voices, newest first, as synthesize_speech takes them', async () => {
    const server = await connect();
    try {
      expect((await completionOf(server.client, 'speak_text', 'voice', '')).values).toEqual([
        'custom_voices/bao.wav',
        'custom_voices/anna.wav',
      ]);
      expect((await completionOf(server.client, 'speak_text', 'voice', 'custom_voices/a')).values).toEqual([
        'custom_voices/anna.wav',
      ]);
    } finally {
      await server.close();
    }
  });

  it('offers local videos, the learning directions and the speech languages', async () => {
    const server = await connect();
    try {
      expect((await completionOf(server.client, 'video_flashcards', 'video', 'lessons/')).values).toEqual([
        'lessons/week1.mp4',
        'lessons/week2.mkv',
      ]);
      expect((await completionOf(server.client, 'video_flashcards', 'direction', 'thai')).values).toEqual(
        LEARNING_DIRECTIONS.filter((direction) => direction.startsWith('thai')),
      );
      expect((await completionOf(server.client, 'speak_text', 'language', '')).values).toEqual([
        ...TTS_LANGUAGES,
      ]);
    } finally {
      await server.close();
    }
  });
});

describe('completing a video model', () => {
  it('reads the catalog once for many completions, and pays for nothing', async () => {
    const sandbox = started.sandbox();
    const server = await connectInProcess('2025-11-25', createServer, { env, secrets: [] });
    try {
      const before = sandbox.control.requests({}).length;
      for (const typed of ['', 'h', 'hu', 'hub', 'hub:']) {
        await completionOf(server.client, 'make_video', 'model', typed);
      }
      const seen = sandbox.control.requests({}).slice(before);
      expect(seen.map((request) => `${request.method} ${request.path}`)).toEqual([
        expect.stringMatching(/^GET .*\/models$/),
      ]);
    } finally {
      await server.close();
    }
  });
});
