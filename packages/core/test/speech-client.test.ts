/**
 * The speech synthesis client's rules against a loopback server: a POST repeated only after an explicit
 * 429, never after a reset that may have admitted the task; a 429 on a status read keeps the taskId; pauses
 * never shorter than Retry-After, also after a restart; the governor keeps a batch within the key's limit,
 * and a request refused with a 429 waits for a free slot; a stopped batch sends no further part; long text
 * is split and joined in order. Time is a fake clock that moves only when the client sleeps.
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseWav } from '../src/audio.js';
import { createMediaDownloader } from '../src/download/download-media.js';
import { createHttpClient } from '../src/http.js';
import {
  ConnectionError,
  createFileAccess,
  type SpeechClient,
  type SpeechTextJob,
  UncertainSubmissionError,
  ValidationError,
} from '../src/index.js';
import { createJobEngine } from '../src/jobs.js';
import { createJobLedger } from '../src/ledger.js';
import { createSpeechClient } from '../src/speech-synthesis/create-speech-client.js';
import { splitSpeechText } from '../src/speech-synthesis/split-speech-text.js';
import { wav } from './support/make-wav.js';
import { readBody, sendJson, startServer, type TestServer } from './support/start-server.js';

const KEY = 'pm_live_speechkey';
let server: TestServer | undefined;
let dir: string;
let sleeps: number[];
/** The fake clock: the client's and engine's `now`, advanced by their sleeps. */
let clock: number;
let closeHttp: (() => Promise<void>) | undefined;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'speech-'));
  sleeps = [];
  clock = Date.now();
});
afterEach(async () => {
  await closeHttp?.();
  closeHttp = undefined;
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
  const previous = closeHttp;
  closeHttp = async () => {
    await previous?.();
    await http.close();
  };
  const files = createFileAccess({ allowedDirs: [dir], outputDir: path.join(dir, 'out') });
  const sleep = async (ms: number) => {
    sleeps.push(ms);
    clock += ms;
  };
  const now = () => clock;
  const random = () => 0;
  return createSpeechClient({
    http,
    files,
    downloader: createMediaDownloader({ platform: { baseUrl: server!.url }, files }),
    // Each client is a process of its own: its own engine (memory), the ledger on disk shared.
    engine: createJobEngine({
      ...(options.ledger ? { ledger: createJobLedger({ dir: path.join(dir, 'jobs') }) } : {}),
      sleep,
      now,
      random,
    }),
    ...(options.concurrentSessions ? { concurrentSessions: options.concurrentSessions } : {}),
    random,
    sleep,
    now,
  });
}

const posts = () => server!.requests.filter((request) => request.method === 'POST');

/** Resolves once a speech-text job has stopped running. */
function settledJob(job: SpeechTextJob): Promise<void> {
  return new Promise((resolve) => {
    if (job.state !== 'running') resolve();
    const stop = job.onChange(() => {
      if (job.state === 'running') return;
      stop();
      resolve();
    });
  });
}

/**
 * A fake service: every task is ready on its `readsToFinish`-th status read (default the second); PENDING
 * answers carry `Retry-After: pendingRetryAfter` (default 5). With `limit`, a POST while that many tasks
 * are unfinished is refused with the service's 429.
 */
function fakeService(
  options: {
    onPost?: (body: Record<string, unknown>, count: number) => 'busy' | 'reset' | 'ok';
    limit?: number;
    readsToFinish?: number;
    pendingRetryAfter?: number;
  } = {},
) {
  const reads = new Map<string, number>();
  const texts = new Map<string, string>();
  const statusReads: { taskId: string; at: number; retryAfterMs: number }[] = [];
  let count = 0;
  let busy = 0;
  let unfinished = 0;
  let peak = 0;
  const readsToFinish = options.readsToFinish ?? 2;
  const pendingRetryAfter = options.pendingRetryAfter ?? 5;
  const refuse = (response: import('node:http').ServerResponse, limit: number) => {
    busy += 1;
    sendJson(
      response,
      429,
      { error: 'too many active jobs', activeJobs: limit, concurrentLimit: limit, retryAfterSeconds: 2 },
      { 'retry-after': '2', 'cache-control': 'no-store' },
    );
  };
  return {
    peak: () => peak,
    /** 429 answers to POSTs. */
    busy: () => busy,
    /** Status reads of tasks, in order, with the fake clock on arrival and the Retry-After answered. */
    statusReads: () => statusReads,
    handler: async (
      request: import('node:http').IncomingMessage,
      response: import('node:http').ServerResponse,
    ) => {
      if (request.method === 'POST') {
        const body = JSON.parse(await readBody(request)) as Record<string, unknown>;
        if (options.limit !== undefined && unfinished >= options.limit) {
          refuse(response, options.limit);
          return;
        }
        count += 1;
        const verdict = options.onPost?.(body, count) ?? 'ok';
        if (verdict === 'busy') {
          refuse(response, 2);
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
      if (seen < readsToFinish) {
        statusReads.push({ taskId, at: clock, retryAfterMs: pendingRetryAfter * 1000 });
        sendJson(
          response,
          200,
          { taskId, state: 'PENDING', ready: false, successful: null },
          { 'retry-after': String(pendingRetryAfter) },
        );
        return;
      }
      statusReads.push({ taskId, at: clock, retryAfterMs: 0 });
      if (seen === readsToFinish) unfinished -= 1;
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
      // Voices in none of the documented forms never reach the platform.
      { text: 'Hi', model: 'model_d', clone_audio: 'file:///etc/passwd' },
      { text: 'Hi', model: 'model_d', clone_audio: '../../etc/passwd' },
      { text: 'Hi', model: 'model_d', clone_audio: 'custom_voices/../../secret.wav' },
      { text: 'Hi', model: 'model_d', clone_audio: '/etc/passwd' },
      { text: 'Hi', model: 'model_d', clone_audio: 'data:audio/wav;base64,UklGRg==' },
    ];
    for (const request of cases) {
      await expect(speech.submit(request), JSON.stringify(request)).rejects.toBeInstanceOf(ValidationError);
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

  it('after a restart, reads a resumed task no sooner than the Retry-After its last read asked for', async () => {
    const fake = fakeService({ readsToFinish: 3, pendingRetryAfter: 2 });
    server = await startServer(fake.handler);
    const first = client({ ledger: true });
    const { taskId } = await first.submit({ text: 'Resume me later.' });
    // The first process reads once (PENDING, Retry-After: 2), runs out of time and stops.
    const outcome = await first.poll(taskId, { deadline: clock + 4_000 });
    expect(outcome).toMatchObject({ done: false, reads: 1, value: { state: 'PENDING' } });

    const restarted = client({ ledger: true });
    const { task, resumed } = await restarted.synthesize({ text: 'Resume me later.' });
    expect({ resumed, state: task.state, taskId: task.taskId }).toEqual({
      resumed: true,
      state: 'SUCCESS',
      taskId,
    });
    expect(posts()).toHaveLength(1);
    const reads = fake.statusReads();
    expect(reads).toHaveLength(3);
    for (let index = 1; index < reads.length; index++) {
      const previous = reads[index - 1]!;
      expect(reads[index]!.at - previous.at).toBeGreaterThanOrEqual(previous.retryAfterMs);
    }
  });

  it('poll answers done: false with the newest task at its deadline, never an error', async () => {
    server = await startServer(fakeService({ readsToFinish: 10, pendingRetryAfter: 1 }).handler);
    const speech = client();
    const { taskId } = await speech.submit({ text: 'Still going.' });
    const seen: string[] = [];
    const outcome = await speech.poll(taskId, {
      deadline: clock + 10_000,
      onProgress: (task) => {
        seen.push(task.state);
      },
    });
    expect(outcome.done).toBe(false);
    expect(outcome.value?.state).toBe('PENDING');
    expect(outcome.reads).toBeGreaterThan(1);
    expect(seen).toHaveLength(outcome.reads);
  });

  it('a part refused with a 429 waits for a free slot of the limit it taught, so no second round is refused', async () => {
    // The key allows 2 unfinished tasks; the client does not know it and starts 4 at once.
    const fake = fakeService({ limit: 2 });
    server = await startServer(fake.handler);
    const speech = client();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, index) => speech.synthesize({ text: `Sentence ${index}.` })),
    );
    expect(results.every((result) => result.task.state === 'SUCCESS')).toBe(true);
    expect(speech.governor.limit).toBe(2);
    // Only the first round, sent before the limit was known, was refused.
    expect(fake.busy()).toBe(2);
    expect(posts()).toHaveLength(6 + 2);
    expect(fake.peak()).toBe(2);
  });

  it('a stopped text synthesis sends no further part, and the same text again resumes the parts already sent', async () => {
    const controller = new AbortController();
    const fake = fakeService({
      onPost: (_body, count) => {
        // Stopped while the second part's POST is in flight.
        if (count === 2) controller.abort(new Error('the user stopped it'));
        return 'ok';
      },
    });
    server = await startServer(fake.handler);
    const speech = client({ concurrentSessions: 2, ledger: true });
    const sentences = Array.from(
      { length: 5 },
      (_, index) =>
        `Sentence ${index + 1} is long enough ${'to fill most of one part '.repeat(5)}on its own.`,
    );
    const text = sentences.join(' ');
    await expect(speech.synthesizeText({ text }, { signal: controller.signal })).rejects.toThrow(
      'the user stopped it',
    );
    expect(posts()).toHaveLength(2);

    const again = await speech.synthesizeText({ text });
    expect(again.parts.map((part) => part.resumed)).toEqual([true, true, false, false, false]);
    expect(posts()).toHaveLength(5);
    expect(again.parts.map((part) => part.text)).toEqual(sentences);
  });

  it('a speech-text job is one ledger job over its parts: another process answers it from the ledger, and resumes it without paying a part again once its file is gone', async () => {
    const controller = new AbortController();
    const fake = fakeService({
      onPost: (_body, count) => {
        // The only caller is cancelled while the second part's POST is in flight.
        if (count === 2) controller.abort(new Error('the caller left'));
        return 'ok';
      },
    });
    server = await startServer(fake.handler);
    const sentences = Array.from(
      { length: 3 },
      (_, index) =>
        `Sentence ${index + 1} is long enough ${'to fill most of one part '.repeat(5)}on its own.`,
    );
    const request = { text: sentences.join(' ') };
    const first = client({ concurrentSessions: 1, ledger: true });
    const job = await first.startTextJob(request, { fileName: 'lesson.wav' });
    expect(job.id).toMatch(/^speech_[0-9a-f]{20}$/);
    job.follow(controller.signal);
    await settledJob(job);
    expect(job.state).toBe('cancelled');
    expect(posts()).toHaveLength(2);

    // The part whose POST was in flight when the caller left is still being recorded by this process (its
    // answer came); another process started a moment later finds it recorded. Here the other process shares
    // this one's claim owner, so it is started once no part is claimed any more, as it would then find it.
    const ledger = createJobLedger({ dir: path.join(dir, 'jobs') });
    // One ledger write left in the background: a few ms, given room on a loaded machine.
    await vi.waitFor(
      async () => {
        const parts = await ledger.list({ service: 'speech-synthesis' });
        expect(parts.filter((part) => part.claim)).toEqual([]);
      },
      { timeout: 10_000, interval: 20 },
    );

    // Cancelled is how another process reads it, until the same request starts it again there: the parts
    // already sent are reused, only the last one is sent.
    const second = client({ concurrentSessions: 1, ledger: true });
    expect((await second.retrieveTextJob(job.id))?.state).toBe('cancelled');
    const resumed = await second.startTextJob(request, { fileName: 'lesson.wav' });
    expect(resumed.id).toBe(job.id);
    await settledJob(resumed!);
    expect(resumed?.state).toBe('done');
    expect(resumed?.outcome?.parts.map((part) => part.resumed)).toEqual([true, true, false]);
    expect(resumed?.outcome?.savedPath).toBe(path.join(await realpath(path.join(dir, 'out')), 'lesson.wav'));
    expect(posts()).toHaveLength(3);

    // A third process answers the saved synthesis from its record, reading no part again.
    const reads = server.requests.length;
    const saved = await client({ ledger: true }).retrieveTextJob(job.id);
    expect(saved?.state).toBe('done');
    expect(saved?.outcome?.parts.every((part) => part.resumed)).toBe(true);
    expect(server.requests).toHaveLength(reads);
    const entry = await ledger.findById('speech-text', job.id);
    expect(entry?.lastStatus).toBe('SUCCESS');
    expect(entry?.request?.parts).toHaveLength(3);

    // Its file gone, the synthesis runs again from the ledger: every part resumed, nothing paid again.
    await rm(path.join(dir, 'out', 'lesson.wav'));
    const rerun = await client({ ledger: true }).retrieveTextJob(job.id);
    await settledJob(rerun!);
    expect(rerun?.outcome?.parts.map((part) => part.resumed)).toEqual([true, true, true]);
    expect(posts()).toHaveLength(3);
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
