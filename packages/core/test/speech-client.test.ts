/**
 * The speech synthesis client's rules against a loopback server: a POST repeated only after an explicit
 * 429, never after a reset that may have admitted the task; a 429 on a status read keeps the taskId; pauses
 * never shorter than Retry-After; the governor keeps a batch within the key's limit; long text is split and
 * joined in order.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ConnectionError,
  createFileAccess,
  createHttpClient,
  createJobEngine,
  createJobLedger,
  createMediaDownloader,
  createSpeechClient,
  parseWav,
  type SpeechClient,
  splitSpeechText,
  UncertainSubmissionError,
  ValidationError,
} from '../src/index.js';
import { readBody, sendJson, startServer, type TestServer } from './helpers/start-server.js';
import { wav } from './helpers/wav.js';

const KEY = 'pm_live_speechkey';
let server: TestServer | undefined;
let dir: string;
let sleeps: number[];
let closeHttp: (() => Promise<void>) | undefined;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'speech-'));
  sleeps = [];
});
afterEach(async () => {
  await closeHttp?.();
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

function client(options: { concurrentSessions?: number; ledger?: boolean } = {}): SpeechClient {
  const http = createHttpClient({
    baseUrl: server!.url,
    apiKey: KEY,
    auth: 'x-api-key',
    baseDelayMs: 1,
    maxDelayMs: 2,
  });
  closeHttp = () => http.close();
  const files = createFileAccess({ allowedDirs: [dir], outputDir: path.join(dir, 'out') });
  return createSpeechClient({
    http,
    files,
    downloader: createMediaDownloader({ platform: { baseUrl: server!.url }, files }),
    ...(options.ledger
      ? { engine: createJobEngine({ ledger: createJobLedger({ dir: path.join(dir, 'jobs') }) }) }
      : {}),
    ...(options.concurrentSessions ? { concurrentSessions: options.concurrentSessions } : {}),
    random: () => 0,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
}

const posts = () => server!.requests.filter((request) => request.method === 'POST');

/** A fake service: every task is ready on its second status read. */
function fakeService(
  options: { onPost?: (body: Record<string, unknown>, count: number) => 'busy' | 'reset' | 'ok' } = {},
) {
  const reads = new Map<string, number>();
  const texts = new Map<string, string>();
  let count = 0;
  let unfinished = 0;
  let peak = 0;
  return {
    peak: () => peak,
    handler: async (
      request: import('node:http').IncomingMessage,
      response: import('node:http').ServerResponse,
    ) => {
      if (request.method === 'POST') {
        const body = JSON.parse(await readBody(request)) as Record<string, unknown>;
        count += 1;
        const verdict = options.onPost?.(body, count) ?? 'ok';
        if (verdict === 'busy') {
          sendJson(
            response,
            429,
            { error: 'too many active jobs', activeJobs: 2, concurrentLimit: 2, retryAfterSeconds: 2 },
            { 'retry-after': '2', 'cache-control': 'no-store' },
          );
          return;
        }
        const taskId = `task_${count}`;
        texts.set(taskId, String(body.text));
        unfinished += 1;
        peak = Math.max(peak, unfinished);
        if (verdict === 'reset') {
          request.socket.destroy();
          return;
        }
        sendJson(
          response,
          202,
          { success: true, taskId, statusPath: `/api/tts/v1/audio/speech/${taskId}` },
          { 'retry-after': '3' },
        );
        return;
      }
      const file = /^\/files\/(task_\d+)\.wav$/.exec(request.url ?? '');
      if (file) {
        const seconds = [...(texts.get(file[1]!) ?? '')].length / 100;
        response.writeHead(200, { 'content-type': 'audio/wav' });
        response.end(wav(seconds));
        return;
      }
      const taskId = (request.url ?? '').split('/').pop() ?? '';
      const seen = (reads.get(taskId) ?? 0) + 1;
      reads.set(taskId, seen);
      if (seen < 2) {
        sendJson(
          response,
          200,
          { taskId, state: 'PENDING', ready: false, successful: null },
          { 'retry-after': '5' },
        );
        return;
      }
      if (seen === 2) unfinished -= 1;
      const text = texts.get(taskId) ?? '';
      sendJson(response, 200, {
        taskId,
        state: 'SUCCESS',
        ready: true,
        successful: true,
        result: {
          success: true,
          url: `/files/${taskId}.wav`,
          metadata: { text, duration: [...text].length / 100 },
        },
      });
    },
  };
}

describe('speech synthesis client', () => {
  it('refuses a request that breaks a rule of the service without sending it', async () => {
    server = await startServer(fakeService().handler);
    const speech = client();
    const cases: Parameters<SpeechClient['submit']>[0][] = [
      { text: 'x'.repeat(201) },
      { text: 'สวัสดี', language: 'th', model: 'model_b' },
      { text: 'Xin chào', language: 'en', model: 'model_a', model_a_expression: 'natural' },
      { text: 'Hi', model: 'model_d', clone_audio: 'custom_voices/v.wav', instruct: 'calm' },
      { text: 'Hi', model: 'model_d', clone_audio: 'https://voices.example/owner.wav' },
      { text: 'Hi', model: 'model_d', clone_audio: 'https://10.0.0.5/owner.wav', consent: true },
    ];
    for (const request of cases) {
      await expect(speech.submit(request)).rejects.toBeInstanceOf(ValidationError);
    }
    expect(server.requests).toHaveLength(0);
  });

  it('waits out a 429 storm on the POST (never shorter than Retry-After), learns the limit, and creates one task', async () => {
    server = await startServer(
      fakeService({ onPost: (_body, count) => (count <= 2 ? 'busy' : 'ok') }).handler,
    );
    const speech = client();
    const { task } = await speech.synthesize({ text: 'Hello there.' });
    expect(task.state).toBe('SUCCESS');
    expect(posts()).toHaveLength(3);
    expect(speech.governor.limit).toBe(2);
    expect(speech.stats().busyAnswers).toBe(2);
    // Two pauses for the 429s (Retry-After 2 s), then the first read after the start's Retry-After (3 s),
    // then no faster than the PENDING answer's Retry-After (5 s).
    expect(sleeps.slice(0, 4)).toEqual([2000, 2000, 3000, 5000]);
  });

  it('does not repeat a POST cut off after the task was admitted, and refuses the same request until allowed', async () => {
    server = await startServer(
      fakeService({ onPost: (_body, count) => (count === 1 ? 'reset' : 'ok') }).handler,
    );
    const speech = client({ ledger: true });
    const error = await speech.submit({ text: 'Only once, please.' }).catch((caught: unknown) => caught);
    expect(ConnectionError.isInstance(error)).toBe(true);
    expect(posts()).toHaveLength(1);
    await expect(speech.submit({ text: 'Only once, please.' })).rejects.toBeInstanceOf(
      UncertainSubmissionError,
    );
    expect(posts()).toHaveLength(1);
    const submitted = await speech.submit({ text: 'Only once, please.' }, { allowResubmit: true });
    expect(submitted.taskId).toBe('task_2');
  });

  it('keeps the same taskId and honours Retry-After when a status read answers 429', async () => {
    const fake = fakeService();
    let throttled = 0;
    server = await startServer(async (request, response) => {
      if (request.method === 'GET' && request.url?.startsWith('/api/') && throttled < 2) {
        throttled += 1;
        sendJson(response, 429, { error: 'polling too fast', retryAfterSeconds: 7 }, { 'retry-after': '7' });
        return;
      }
      await fake.handler(request, response);
    });
    const speech = client();
    const { task } = await speech.synthesize({ text: 'Patience.' });
    expect(task.taskId).toBe('task_1');
    const reads = server.requests.filter(
      (request) => request.method === 'GET' && request.url.startsWith('/api/'),
    );
    expect(new Set(reads.map((request) => request.url))).toEqual(
      new Set(['/api/tts/v1/audio/speech/task_1']),
    );
    expect(sleeps.filter((ms) => ms === 7000)).toHaveLength(2);
    expect(posts()).toHaveLength(1);
  });

  it('backs off gradually to one status read per 15 s', async () => {
    server = await startServer(async (request, response) => {
      if (request.method === 'POST') {
        await readBody(request);
        sendJson(response, 202, { taskId: 'slow' });
        return;
      }
      const reads = server!.requests.filter((item) => item.method === 'GET').length;
      sendJson(
        response,
        200,
        reads < 20
          ? { taskId: 'slow', state: 'STARTED', ready: false }
          : {
              taskId: 'slow',
              state: 'FAILURE',
              ready: true,
              successful: false,
              error: 'no audio',
            },
      );
    });
    const speech = client();
    await expect(speech.synthesize({ text: 'Slow one.' })).rejects.toThrow(/FAILURE: no audio/);
    const pauses = sleeps.slice(1);
    expect(pauses.every((ms, index) => index === 0 || ms >= (pauses[index - 1] as number))).toBe(true);
    expect(Math.max(...pauses)).toBe(15_000);
  });

  it('keeps a batch within the key limit and tells queued work its position', async () => {
    const fake = fakeService();
    server = await startServer(fake.handler);
    const speech = client({ concurrentSessions: 2 });
    const positions: number[][] = [[], [], [], [], []];
    await Promise.all(
      positions.map((seen, index) =>
        speech.synthesize({ text: `Sentence ${index}.` }, { onQueued: (position) => seen.push(position) }),
      ),
    );
    expect(fake.peak()).toBe(2);
    expect(posts()).toHaveLength(5);
    expect(positions[2]).toEqual([1]);
    expect(positions[4]).toEqual([3, 2, 1]);
    expect(speech.stats().busyAnswers).toBe(0);
  });

  it('splits long text at sentence boundaries and joins the WAVs in order', async () => {
    server = await startServer(fakeService().handler);
    const speech = client({ concurrentSessions: 3 });
    const sentences = Array.from(
      { length: 9 },
      (_, index) => `This is sentence number ${index + 1} of the long text.`,
    );
    const text = sentences.join(' ');
    const result = await speech.synthesizeText({ text });
    expect(result.parts.length).toBeGreaterThanOrEqual(3);
    expect(result.parts.every((part) => [...part.text].length <= 200)).toBe(true);
    expect(result.parts.map((part) => part.text).join(' ')).toBe(text);
    const joined = parseWav(result.wav);
    const expectedSeconds = result.parts.reduce((sum, part) => sum + [...part.text].length / 100, 0);
    expect(joined.data.byteLength / (joined.sampleRate * joined.channels * 2)).toBeCloseTo(
      expectedSeconds,
      1,
    );
  });
});

describe('splitSpeechText', () => {
  it('packs whole sentences and splits an over-long sentence between words, Thai included', () => {
    expect(splitSpeechText('Short.')).toEqual(['Short.']);
    const thai = 'ฉันชอบอ่านหนังสือที่ห้องสมุด'.repeat(12);
    const parts = splitSpeechText(thai, { language: 'th' });
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.every((part) => [...part].length <= 200)).toBe(true);
    expect(parts.join('')).toBe(thai);
    const word = 'a'.repeat(450);
    expect(splitSpeechText(word).map((part) => part.length)).toEqual([200, 200, 50]);
  });
});
