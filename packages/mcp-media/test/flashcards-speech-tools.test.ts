/**
 * Flashcards and speech tools over MCP against the sandbox: results saved into the output directory,
 * long text split and joined in order, resuming instead of paying twice, the voice consent rule.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { parseWav } from '@polymodal/core/audio';
import { readMediaFixture, synthesizeVoice } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../src/server.js';
import { type MediaHarness, startMediaHarness } from './support/harness.js';

let harness: MediaHarness;
const count = (group: string) =>
  harness.sandbox.control.counters()[group]?.[harness.sandbox.users[0]!.id] ?? 0;

const LONG_TEXT =
  'Thank you all for joining the weekly planning meeting today. Anna will send the revised budget to finance by Friday afternoon. ' +
  'Ben is going to book the venue for the spring workshop and confirm the catering order. ' +
  'Chloe will draft the customer newsletter and share it with the team for review on Monday. ' +
  'We meet again next Tuesday at ten.';

beforeAll(async () => {
  harness = await startMediaHarness();
  await writeFile(path.join(harness.root, 'lesson.mp4'), readMediaFixture('mp4'));
  await writeFile(
    path.join(harness.root, 'owner.wav'),
    synthesizeVoice({ text: 'This is my voice.', pitchHz: 180, seed: 7 }),
  );
});
afterAll(async () => {
  await harness?.close();
});

describe('flashcards tools', () => {
  it('create_flashcards uploads a local video and returns segments, words and the saved JSON', async () => {
    const result = await harness.call('create_flashcards', {
      video: path.join(harness.root, 'lesson.mp4'),
      learningDirection: 'thai_to_chinese',
      maxWordsPerSegment: 6,
      waitSeconds: 30,
    });
    expect(result.isError, result.text).toBe(false);
    expect(result.structured).toMatchObject({ done: true, sourceLanguage: 'th', targetLanguage: 'zh' });
    expect(result.structured.segmentCount).toBeGreaterThan(0);
    expect(result.structured.segments[0].words.length).toBeGreaterThan(0);
    const saved = JSON.parse(await readFile(result.structured.savedPath, 'utf8'));
    expect(saved.segments).toHaveLength(result.structured.segmentCount);

    const before = count('flashcardJobs');
    const again = await harness.call('create_flashcards', {
      video: path.join(harness.root, 'lesson.mp4'),
      learningDirection: 'thai_to_chinese',
      maxWordsPerSegment: 6,
      waitSeconds: 30,
    });
    expect(again.structured).toMatchObject({ jobId: result.structured.jobId, resumed: true });
    expect(count('flashcardJobs')).toBe(before);
  });

  it('starts from a YouTube URL with a handle, finished by get_flashcards', async () => {
    // Held: the job stays queued however slow the machine is, until the clock is released.
    harness.sandbox.control.holdClock();
    const started = await harness.call('create_flashcards', {
      video: 'https://youtu.be/dQw4w9WgXcQ',
      learningDirection: 'korean_to_chinese',
      waitSeconds: 0,
    });
    harness.sandbox.control.releaseClock();
    expect(started.structured).toMatchObject({ done: false });
    expect(started.structured.jobId).toMatch(/^vf_/);
    const done = await harness.call('get_flashcards', { jobId: started.structured.jobId, waitSeconds: 40 });
    expect(done.structured).toMatchObject({ done: true, sourceLanguage: 'ko' });
  });

  it('refuses a mismatched language pair and a private direct URL before any job', async () => {
    const before = count('flashcardJobs');
    const pair = await harness.call('create_flashcards', {
      video: 'https://youtu.be/dQw4w9WgXcQ',
      learningDirection: 'thai_to_chinese',
      sourceLanguage: 'zh',
    });
    expect(pair.text).toMatch(/source_language zh does not match thai_to_chinese/);
    const local = await harness.call('create_flashcards', {
      video: 'http://192.168.1.10/video.mp4',
      sourceType: 'direct_video_url',
      learningDirection: 'thai_to_chinese',
    });
    expect(local.text).toMatch(/private, loopback, local-network or otherwise non-public host/);
    expect(count('flashcardJobs')).toBe(before);
  });
});

describe('speech tools', () => {
  it('synthesize_speech splits long text, joins the parts in order into one WAV, and reuses them when asked again', async () => {
    const before = count('ttsTasks');
    const result = await harness.call('synthesize_speech', { text: LONG_TEXT, waitSeconds: 45 });
    expect(result.isError, result.text).toBe(false);
    const parts = result.structured.parts as { text: string }[];
    expect(parts.length).toBeGreaterThanOrEqual(2);
    expect(parts.every((part) => [...part.text].length <= 200)).toBe(true);
    expect(parts.map((part) => part.text).join(' ')).toBe(LONG_TEXT);
    const wav = parseWav(await readFile(result.structured.savedPath));
    const seconds = wav.data.byteLength / (wav.sampleRate * wav.channels * (wav.bitsPerSample / 8));
    expect(seconds).toBeCloseTo(result.structured.durationSeconds, 1);
    expect(count('ttsTasks')).toBe(before + parts.length);
    expect(result.content.some((item) => item.type === 'resource_link')).toBe(true);
    expect(result.content.some((item) => item.type === 'audio')).toBe(false);

    // The same call again joins the finished job of this session.
    const again = await harness.call('synthesize_speech', { text: LONG_TEXT, waitSeconds: 45 });
    expect(again.structured).toMatchObject({ jobId: result.structured.jobId, done: true });
    // A restarted server finds the parts in the job ledger and reuses them.
    const restarted = await harness.connect();
    try {
      const resumed = await restarted.call('synthesize_speech', { text: LONG_TEXT, waitSeconds: 45 });
      expect(resumed.structured.parts.every((part: { resumed: boolean }) => part.resumed)).toBe(true);
      expect(await readFile(resumed.structured.savedPath)).toEqual(
        await readFile(result.structured.savedPath),
      );
    } finally {
      await restarted.close();
    }
    expect(count('ttsTasks')).toBe(before + parts.length);
    // Sized by the work, not the 20 s default: every part waits the platform's Retry-After (at least 1 s of
    // wall time, whatever the sandbox's speed) before its first read, the WAVs are synthesized and joined
    // for real, and two of the calls may each wait their full 45 s. A busy machine took 25-33 s.
  }, 120_000);

  it('uses model_d for Thai, inlines small audio only when asked, and hands back a handle for get_speech', async () => {
    // Held: the task stays unfinished however slow the machine is, until the clock is released.
    harness.sandbox.control.holdClock();
    const started = await harness.call('synthesize_speech', {
      text: 'สวัสดีครับ ยินดีต้อนรับ',
      language: 'th',
      inlineAudio: true,
      waitSeconds: 0,
    });
    harness.sandbox.control.releaseClock();
    expect(started.structured).toMatchObject({ done: false, status: 'RUNNING' });
    const done = await harness.call('get_speech', {
      jobId: started.structured.jobId,
      inlineAudio: true,
      waitSeconds: 30,
    });
    expect(done.structured).toMatchObject({ done: true, status: 'SUCCESS' });
    const audio = done.content.find((item) => item.type === 'audio') as { data: string } | undefined;
    expect(
      Buffer.from(audio?.data ?? '', 'base64')
        .subarray(8, 12)
        .toString('latin1'),
    ).toBe('WAVE');
  });

  it('refuses a request that breaks a rule before any task', async () => {
    const before = count('ttsTasks');
    const result = await harness.call('synthesize_speech', {
      text: 'Xin chào',
      language: 'th',
      model: 'model_b',
    });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/th requires model_d/);
    const expression = await harness.call('synthesize_speech', {
      text: 'Hello',
      modelAExpression: 'natural',
    });
    expect(expression.text).toMatch(/model_a_expression/);
    expect(count('ttsTasks')).toBe(before);
  });

  it('register_voice requires consent, registers once, and the voice is listed and usable', async () => {
    const refused = await harness.call('register_voice', { audioPath: path.join(harness.root, 'owner.wav') });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/consent is required/);
    expect(count('customVoices')).toBe(0);

    const voice = await harness.call('register_voice', {
      audioPath: path.join(harness.root, 'owner.wav'),
      consent: true,
      name: 'Owner',
      transcript: 'This is my voice.',
    });
    expect(voice.isError, voice.text).toBe(false);
    expect(voice.structured.cloneAudio).toMatch(/^custom_voices\//);
    const twice = await harness.call('register_voice', {
      audioPath: path.join(harness.root, 'owner.wav'),
      consent: true,
      name: 'Owner',
      transcript: 'This is my voice.',
    });
    expect(twice.structured).toMatchObject({ cloneAudio: voice.structured.cloneAudio, resumed: true });
    expect(count('customVoices')).toBe(1);

    const listed = await harness.call('list_voices');
    expect(listed.structured.voices.map((item: { cloneAudio: string }) => item.cloneAudio)).toEqual([
      voice.structured.cloneAudio,
    ]);
    const spoken = await harness.call('synthesize_speech', {
      text: 'Hello from my own voice.',
      model: 'model_d',
      voice: voice.structured.cloneAudio,
      waitSeconds: 30,
    });
    expect(spoken.isError, spoken.text).toBe(false);
  });

  it('register_voice refuses a WAV that holds no readable PCM before sending anything', async () => {
    const voice = synthesizeVoice({ text: 'This is my voice.', pitchHz: 180, seed: 7 });
    // A RIFF/WAVE header with noise behind it (no fmt or data chunk), and a real recording whose fmt
    // chunk says IMA ADPCM (format 0x11): both named .wav, neither decodable as PCM.
    const garbage = Buffer.concat([
      Buffer.from('RIFF\x00\x10\x00\x00WAVE', 'latin1'),
      Buffer.alloc(4096, 0x5a),
    ]);
    const adpcm = Buffer.from(voice);
    adpcm.writeUInt16LE(0x11, 20);
    const cases = { 'garbage.wav': garbage, 'adpcm.wav': adpcm };
    const registrations = () => harness.sandbox.control.requests({ method: 'POST', path: '/custom-voices$' });
    const before = registrations().length;
    for (const [name, bytes] of Object.entries(cases)) {
      await writeFile(path.join(harness.root, name), bytes);
      const refused = await harness.call('register_voice', {
        audioPath: path.join(harness.root, name),
        consent: true,
        name: 'Owner',
      });
      expect(refused.isError, name).toBe(true);
      expect(refused.text).toMatch(/not a readable PCM WAV.*pcm_s16le.*Nothing was sent/s);
    }
    expect(registrations()).toHaveLength(before);
  });

  it('asks the user for consent through elicitation when the client supports it', async () => {
    const instance = createServer({ env: harness.env });
    const client = new Client({ name: 'elicit', version: '1' }, { capabilities: { elicitation: {} } });
    const questions: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      questions.push(String(request.params.message));
      return { action: 'accept', content: { ownerConsents: true } };
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await instance.server.connect(serverSide);
    await client.connect(clientSide);
    try {
      const result = await client.callTool({
        name: 'register_voice',
        arguments: { audioPath: path.join(harness.root, 'owner.wav'), name: 'Asked' },
      });
      expect(result.isError).toBeFalsy();
      expect(questions[0]).toMatch(/authorised cloning/);
    } finally {
      await client.close();
      await instance.cleanup();
    }
  });
});
