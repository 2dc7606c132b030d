/**
 * Per-call options on every client: `maxRetries` replaces the client's retry count for one call (counted at
 * the server), `timeout` bounds the whole call whatever Retry-After says, `signal` aborts it, and bad values
 * are refused before any request. Against a loopback server that answers 503 (or never answers); the
 * client's retry pauses are made instant, so the counts do not depend on the clock.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type CallOptions,
  createPolymodal,
  type Polymodal,
  ServiceUnavailableError,
  TimeoutError,
  ValidationError,
} from '../src/index.js';
import { startServer, type TestServer } from './support/start-server.js';

let server: TestServer;
let polymodal: Polymodal;
/** What the server does with every request. */
let answer: 'unavailable' | 'unavailable-long-retry' | 'hang';

beforeEach(async () => {
  answer = 'unavailable';
  server = await startServer((_request, response) => {
    if (answer === 'hang') return;
    response.writeHead(503, {
      'content-type': 'application/json',
      ...(answer === 'unavailable-long-retry' ? { 'retry-after': '3600' } : {}),
    });
    response.end(JSON.stringify({ error: 'busy' }));
  });
  polymodal = createPolymodal({
    baseUrl: server.url,
    apiKey: 'pm_test_key_call_options',
    ledger: false,
    mediaPollIntervalMs: 20,
    http: { sleep: async () => undefined, maxRetries: 4 },
  });
});

afterEach(async () => {
  await polymodal.close();
  await server.close();
});

/** One read-only call of each client that takes the per-call options. */
const READS: [string, (client: Polymodal, call: CallOptions) => Promise<unknown>][] = [
  ['meeting.list', (client, call) => client.meeting.list(call)],
  ['meeting.retrieve', (client, call) => client.meeting.retrieve('job-1', call)],
  ['llm.models', (client, call) => client.llm.models(call)],
  ['readingScore.retrieve', (client, call) => client.readingScore.retrieve('task-1', call)],
  ['thaiAsr.config', (client, call) => client.thaiAsr.config(call)],
  ['speech.retrieve', (client, call) => client.speech.retrieve('task-1', call)],
  ['catalogVideo.models', (client, call) => client.catalogVideo.models(call)],
  ['catalogVideo.retrieve', (client, call) => client.catalogVideo.retrieve('req-1', call)],
  ['imageToVideo.retrieve', (client, call) => client.imageToVideo.retrieve('req-1', call)],
  ['flashcards.retrieve', (client, call) => client.flashcards.retrieve('job-1', call)],
];

describe('per-call options', () => {
  it.each(READS)(
    '%s: maxRetries 0 sends one request, 2 sends three, the default five',
    async (_name, read) => {
      await expect(read(polymodal, { maxRetries: 0 })).rejects.toSatisfy(ServiceUnavailableError.isInstance);
      expect(server.requests).toHaveLength(1);
      await expect(read(polymodal, { maxRetries: 2 })).rejects.toSatisfy(ServiceUnavailableError.isInstance);
      expect(server.requests).toHaveLength(4);
      await expect(read(polymodal, {})).rejects.toSatisfy(ServiceUnavailableError.isInstance);
      expect(server.requests).toHaveLength(9);
    },
  );

  it.each(READS)(
    '%s: timeout ends the call at once when Retry-After asks for an hour',
    async (_name, read) => {
      answer = 'unavailable-long-retry';
      // The client would pause an hour (instantly here) and try again; the timeout forbids any pause past it.
      const outcome = read(polymodal, { timeout: 60_000 });
      await expect(outcome).rejects.toSatisfy(ServiceUnavailableError.isInstance);
      expect(server.requests).toHaveLength(1);
    },
  );

  it('timeout cuts a request the server never answers, as a TimeoutError with deadlineReached', async () => {
    answer = 'hang';
    const error = await polymodal.meeting.list({ timeout: 300 }).catch((caught: unknown) => caught);
    expect(TimeoutError.isInstance(error)).toBe(true);
    expect((error as TimeoutError).deadlineReached).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('signal aborts a call the server never answers, with the signal reason', async () => {
    answer = 'hang';
    const controller = new AbortController();
    const outcome = polymodal.flashcards.retrieve('job-1', { signal: controller.signal });
    controller.abort(new Error('stopped by the caller'));
    await expect(outcome).rejects.toThrow('stopped by the caller');
  });

  it('refuses a bad timeout or maxRetries before any request', async () => {
    for (const call of [{ timeout: 0 }, { timeout: Number.NaN }, { maxRetries: -1 }, { maxRetries: 1.5 }]) {
      await expect(polymodal.meeting.list(call)).rejects.toSatisfy(ValidationError.isInstance);
      await expect(polymodal.speech.wait('task-1', call as CallOptions)).rejects.toSatisfy(
        ValidationError.isInstance,
      );
    }
    expect(server.requests).toHaveLength(0);
  });

  it('a wait gives up after maxRetries + 1 failed reads in a row', async () => {
    const outcome = polymodal.catalogVideo.wait('req-1', { maxRetries: 1, timeoutMs: 60_000 });
    await expect(outcome).rejects.toSatisfy(ServiceUnavailableError.isInstance);
    // Each read is one attempt (the wait paces its reads itself): two failed reads.
    expect(server.requests).toHaveLength(2);
  });

  it('every public method that reaches the platform accepts { signal, timeout, maxRetries }', () => {
    const call: Required<CallOptions> = { signal: new AbortController().signal, timeout: 1, maxRetries: 0 };
    // Compiled, not run: `pnpm test` typechecks this file, so a method that stops accepting the three options
    // fails the suite there.
    const compiled = (client: Polymodal) => [
      client.meeting.upload('a.wav', call),
      client.meeting.create({ uploadReceipt: 'r', sourceLanguage: 'auto', targetLanguage: 'en' }, call),
      client.meeting.list(call),
      client.meeting.retrieve('j', call),
      client.meeting.cancel('j', call),
      client.meeting.retry('j', call),
      client.meeting.resummarize('j', call),
      client.meeting.retranslate('j', { targetLanguage: 'ja' }, call),
      client.meeting.update('j', { title: 't' }, call),
      client.meeting.delete('j', call),
      client.meeting.submit({ file: 'a.wav', sourceLanguage: 'auto', targetLanguage: 'en', ...call }),
      client.meeting.poll('j', { deadline: 0, ...call }),
      client.meeting.wait('j', call),
      client.meeting.summarize({ file: 'a.wav', sourceLanguage: 'auto', targetLanguage: 'en', ...call }),
      client.llm.models(call),
      client.llm.chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, call),
      client.llm.complete('hi', { model: 'm', ...call }),
      client.readingScore.submit({ studentAudio: 'a.wav', referenceText: 'x', ...call }),
      client.readingScore.retrieve('t', call),
      client.readingScore.poll('t', { deadline: 0, ...call }),
      client.readingScore.wait('t', call),
      client.readingScore.score({ studentAudio: 'a.wav', referenceText: 'x', ...call }),
      client.thaiAsr.config(call),
      client.thaiAsr.createSession({}, call),
      client.thaiAsr.transcribe({ samples: new Int16Array(1), ...call }),
      client.speech.submit({ text: 'hi' } as never, call),
      client.speech.retrieve('t', call),
      client.speech.poll('t', { deadline: 0, ...call }),
      client.speech.wait('t', call),
      client.speech.synthesize({ text: 'hi' } as never, call),
      client.speech.synthesizeText({ text: 'hi' } as never, call),
      client.speech.registerVoice({ consent: true, audioUrl: 'https://example.com/v.wav', ...call }),
      client.catalogVideo.models(call),
      client.catalogVideo.validate({ model: 'm', prompt: 'p' } as never, call),
      client.catalogVideo.submit({ model: 'm', prompt: 'p' } as never, call),
      client.catalogVideo.retrieve('r', call),
      client.catalogVideo.poll('r', { deadline: 0, ...call }),
      client.catalogVideo.wait('r', call),
      client.imageToVideo.submit({ prompt: 'p', image: { url: 'data:' } } as never, call),
      client.imageToVideo.retrieve('r', call),
      client.imageToVideo.poll('r', { deadline: 0, ...call }),
      client.imageToVideo.wait('r', call),
      client.flashcards.startFromFile('v.mp4', { direction: 'en-th' } as never, call),
      client.flashcards.startFromUrl('https://youtu.be/x', { direction: 'en-th' } as never, call),
      client.flashcards.retrieve('j', call),
      client.flashcards.poll('j', { deadline: 0, ...call }),
      client.flashcards.wait('j', call),
    ];
    expect(typeof compiled).toBe('function');
  });
});
