/**
 * Conformance of streaming Thai recognition: config and session routes, the WebSocket protocol, VAD,
 * partials and finals, limits, and protocol errors.
 */
import { decodeWavToPcm16 } from '@polymodal/core/audio';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createThaiSpeech, type Sandbox, startSandbox, THAI_PHRASES } from '../src/index.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
beforeEach(() => sandbox.control.reset());
afterAll(() => sandbox.close());

async function http(path: string, init: RequestInit = {}, key = sandbox.apiKey) {
  const response = await fetch(`${sandbox.url}/api/thai-asr${path}`, {
    ...init,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

interface Stream {
  socket: WebSocket;
  events: Record<string, any>[];
  next(type: string): Promise<Record<string, any>>;
  close(): void;
}

/** The type given to a frame that is not JSON (a `ws-malformed` fault); its text is in `raw`. */
const NOT_JSON = '(not json)';

function parseEvent(text: string): Stream['events'][number] {
  try {
    return JSON.parse(text);
  } catch {
    return { type: NOT_JSON, raw: text };
  }
}

async function openStream(
  session?: Record<string, unknown>,
  key = sandbox.apiKey,
  waitForReady = true,
): Promise<Stream> {
  const created = await http('/sessions', { method: 'POST', body: JSON.stringify(session ?? {}) });
  const socket = new WebSocket(`${created.body.ws_url}&api_key=${encodeURIComponent(key)}`);
  const events: Record<string, any>[] = [];
  const waiters: { type: string; resolve: (event: Record<string, any>) => void }[] = [];
  // Events handed out by next(), so that each is returned once.
  const taken = new Set<Record<string, any>>();
  const take = (event: Record<string, any>) => {
    taken.add(event);
    return event;
  };
  socket.on('message', (data) => {
    const event = parseEvent(String(data));
    events.push(event);
    const index = waiters.findIndex((waiter) => waiter.type === event.type);
    if (index >= 0) waiters.splice(index, 1)[0]?.resolve(take(event));
  });
  const stream: Stream = {
    socket,
    events,
    next: (type) =>
      new Promise((resolve, reject) => {
        const seen = events.find((event) => event.type === type && !taken.has(event));
        if (seen) {
          resolve(take(seen));
          return;
        }
        const timer = setTimeout(() => reject(new Error(`no ${type} event`)), 3000);
        waiters.push({
          type,
          resolve: (event) => {
            clearTimeout(timer);
            resolve(event);
          },
        });
      }),
    close: () => socket.terminate(),
  };
  if (waitForReady) await stream.next('ready');
  else await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return stream;
}

function sendAudio(stream: Stream, samples: Int16Array, chunkMs = 80, rate = 16_000) {
  const chunk = Math.round((rate * chunkMs) / 1000);
  for (let start = 0; start < samples.length; start += chunk) {
    const part = samples.subarray(start, start + chunk);
    stream.socket.send(Buffer.from(part.buffer, part.byteOffset, part.byteLength));
  }
}

const PHRASES = [THAI_PHRASES[2], THAI_PHRASES[5]];
const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));
const STREAM = { path: '/api/thai-asr/stream$' };

describe('thai-asr HTTP routes', () => {
  it('reports config with defaults, tenant and limits', async () => {
    const { status, body } = await http('/config');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      language: 'th',
      engine: 'engine_t',
      defaults: {
        sample_rate: 16000,
        frame_ms: 20,
        stream_chunk_ms: 80,
        partial_interval_ms: 40,
        min_decode_audio_ms: 240,
        decode_window_ms: 1600,
        vad: true,
      },
      limits: {
        requests_per_minute: 120,
        concurrent_sessions: 3,
        daily_audio_seconds: 3600,
        today_audio_seconds_used: 0,
      },
    });
    expect(body.tenant.key_prefix).toBe('pm_live');
    expect(JSON.stringify(body)).not.toContain(sandbox.apiKey);
  });

  it('creates sessions with defaults, and refuses out-of-range fields', async () => {
    const { status, body } = await http('/sessions', {
      method: 'POST',
      body: JSON.stringify({ sample_rate: 8000, benchmark_label: 'run-1' }),
    });
    expect(status).toBe(201);
    expect(body.ws_url).toContain(`session_id=${body.session_id}`);
    expect(body.config).toMatchObject({
      sample_rate: 8000,
      partial_interval_ms: 40,
      vad: true,
      benchmark_label: 'run-1',
    });
    expect(body.sla_targets).toEqual({
      speech_detected_p95_ms: 60,
      first_partial_p95_ms: 250,
      final_after_eou_p95_ms: 800,
    });
    for (const bad of [
      { sample_rate: 7999 },
      { frame_ms: 201 },
      { partial_interval_ms: 10 },
      { min_decode_audio_ms: 50 },
      { decode_window_ms: 20_000 },
      { benchmark_label: 'x'.repeat(201) },
      { other: 1 },
    ]) {
      expect(
        (await http('/sessions', { method: 'POST', body: JSON.stringify(bad) })).status,
        JSON.stringify(bad),
      ).toBe(400);
    }
  });
});

describe('thai-asr WebSocket', () => {
  it('streams speech: ready, started, speech_start, partials, stabilized partial, final with segments', async () => {
    const stream = await openStream();
    stream.socket.send(JSON.stringify({ type: 'start' }));
    expect((await stream.next('started')).config.sample_rate).toBe(16000);
    sendAudio(stream, decodeWavToPcm16(createThaiSpeech({ phrases: PHRASES }), 16_000));
    stream.socket.send(JSON.stringify({ type: 'end' }));
    const final = await stream.next('final');
    expect(final.text).toBe(PHRASES.join(' '));
    expect(final.segments).toHaveLength(2);
    expect(final.segments[0].start).toBeGreaterThanOrEqual(0.4);
    expect(final.segments[1].start).toBeGreaterThan(final.segments[0].end);
    expect(final).toMatchObject({ engine: 'engine_t', backend: 'persistent_decoder' });
    for (const field of [
      'audio_ms',
      'latency_ms',
      'queue_ms',
      'decode_ms',
      'processing_time_ms',
      'audio_duration_ms',
    ]) {
      expect(typeof final[field], field).toBe('number');
    }
    const speechStart = stream.events.find((event) => event.type === 'speech_start');
    expect(speechStart?.offset_ms).toBeGreaterThanOrEqual(480);
    const partials = stream.events.filter((event) => event.type === 'partial');
    expect(partials.length).toBeGreaterThan(3);
    expect(partials[0]?.text).toBe(PHRASES[0]);
    expect(
      stream.events.some((event) => event.type === 'stabilized_partial' && event.text === PHRASES[0]),
    ).toBe(true);
    stream.close();
  });

  it('recognises audio resampled from 44.1 kHz and sent as audio_b64', async () => {
    const stream = await openStream();
    stream.socket.send(JSON.stringify({ type: 'start' }));
    await stream.next('started');
    const samples = decodeWavToPcm16(
      createThaiSpeech({ phrases: [THAI_PHRASES[9]], sampleRate: 44_100 }),
      16_000,
    );
    stream.socket.send(
      JSON.stringify({ type: 'audio', audio_b64: Buffer.from(samples.buffer).toString('base64') }),
    );
    stream.socket.send(JSON.stringify({ type: 'end_utterance' }));
    expect((await stream.next('final')).text).toBe(THAI_PHRASES[9]);
    stream.close();
  });

  it('hears nothing in silence: no speech_start, empty final', async () => {
    const stream = await openStream();
    stream.socket.send(JSON.stringify({ type: 'start' }));
    await stream.next('started');
    sendAudio(stream, new Int16Array(16_000));
    stream.socket.send(JSON.stringify({ type: 'end' }));
    expect((await stream.next('final')).text).toBe('');
    expect(stream.events.some((event) => event.type === 'speech_start' || event.type === 'partial')).toBe(
      false,
    );
    stream.close();
  });

  it('answers protocol mistakes with error events and supports reset', async () => {
    const stream = await openStream();
    stream.socket.send(Buffer.from([1, 2]));
    expect((await stream.next('error')).code).toBe('not_started');
    stream.socket.send('not json');
    expect((await stream.next('error')).code).toBe('bad_message');
    stream.socket.send(JSON.stringify({ type: 'start' }));
    await stream.next('started');
    stream.socket.send(JSON.stringify({ type: 'start' }));
    expect((await stream.next('error')).code).toBe('already_started');
    stream.socket.send(Buffer.from([1, 2, 3]));
    expect((await stream.next('error')).code).toBe('bad_audio');
    stream.socket.send(JSON.stringify({ type: 'reset' }));
    await stream.next('reset_ok');
    stream.socket.send(JSON.stringify({ type: 'dance' }));
    expect((await stream.next('error')).code).toBe('unknown_type');
    stream.close();
  });

  it('enforces concurrent sessions per key and refuses unknown sessions and keys', async () => {
    const streams = await Promise.all([openStream(), openStream(), openStream()]);
    const fourth = await openStream();
    expect((await fourth.next('error')).code).toBe('concurrent_sessions_exceeded');
    for (const stream of [...streams, fourth]) stream.close();

    const other = await http('/sessions', { method: 'POST', body: '{}' });
    const refused = (url: string) =>
      new Promise<number>((resolve) => {
        const socket = new WebSocket(url);
        socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
        socket.on('error', () => undefined);
      });
    expect(await refused(`${other.body.ws_url}&api_key=${sandbox.apiKey2}`)).toBe(404);
    expect(await refused(`${other.body.ws_url}&api_key=pm_live_wrong`)).toBe(401);
  });
});

describe('thai-asr WebSocket faults', () => {
  const speech = () => decodeWavToPcm16(createThaiSpeech({ phrases: PHRASES }), 16_000);

  /** Streams one utterance: start, the audio, end. */
  function speak(stream: Stream, samples = speech()) {
    stream.socket.send(JSON.stringify({ type: 'start' }));
    sendAudio(stream, samples);
    stream.socket.send(JSON.stringify({ type: 'end' }));
  }

  it('ws-stall: ready, then silence for the whole wait, while the socket stays open and the audio is read', async () => {
    sandbox.control.setFaults([{ match: STREAM, kind: 'ws-stall', count: 1 }]);
    const stream = await openStream();
    const samples = speech();
    speak(stream, samples);
    stream.socket.send('not json');
    await pause(1500);
    expect(stream.events.map((event) => event.type)).toEqual(['ready']);
    expect(stream.socket.readyState).toBe(WebSocket.OPEN);
    // The server kept reading: the key was charged for every second of the audio.
    expect((await http('/config')).body.limits.today_audio_seconds_used).toBe(
      Math.round(samples.length / 16_000),
    );
    // Pings are still answered, so only an idle timer on events notices the stall.
    const pong = new Promise((resolve) => stream.socket.once('pong', resolve));
    stream.socket.ping();
    await pong;
    expect(sandbox.control.counters().faults).toEqual({ 'ws-stall': 1 });
    stream.close();

    const next = await openStream();
    speak(next);
    expect((await next.next('final')).text).toBe(PHRASES.join(' '));
    next.close();
  });

  it('ws-stall with afterEvents: 2 sends ready and started, then nothing; with afterEvents: 0 not even ready', async () => {
    sandbox.control.setFaults([{ match: STREAM, kind: 'ws-stall', afterEvents: 2, count: 1 }]);
    const late = await openStream();
    speak(late);
    await late.next('started');
    sandbox.control.setFaults([{ match: STREAM, kind: 'ws-stall', afterEvents: 0, count: 1 }]);
    const silent = await openStream(undefined, sandbox.apiKey, false);
    await pause(1500);
    expect(late.events.map((event) => event.type)).toEqual(['ready', 'started']);
    expect(silent.events).toEqual([]);
    expect(silent.socket.readyState).toBe(WebSocket.OPEN);
    late.close();
    silent.close();
  });

  it('ws-malformed: one frame that is not JSON right after ready, then the session goes on normally', async () => {
    sandbox.control.setFaults([{ match: STREAM, kind: 'ws-malformed', count: 1 }]);
    const stream = await openStream();
    speak(stream);
    expect((await stream.next('final')).text).toBe(PHRASES.join(' '));
    const types = stream.events.map((event) => event.type);
    expect(types.slice(0, 3)).toEqual(['ready', NOT_JSON, 'started']);
    expect(types.filter((type) => type === NOT_JSON)).toHaveLength(1);
    expect(() => JSON.parse(stream.events[1]?.raw)).toThrow(SyntaxError);
    expect(sandbox.control.counters().faults).toEqual({ 'ws-malformed': 1 });
    stream.close();
  });

  it('ws-malformed with a frame of an unknown type, after the given number of events', async () => {
    sandbox.control.setFaults([
      { match: STREAM, kind: 'ws-malformed', afterEvents: 2, frame: '{"type":"sandbox_unknown"}' },
    ]);
    const stream = await openStream();
    speak(stream);
    expect((await stream.next('final')).text).toBe(PHRASES.join(' '));
    const types = stream.events.map((event) => event.type);
    expect(types.slice(0, 3)).toEqual(['ready', 'started', 'sandbox_unknown']);
    expect(types.filter((type) => type === 'sandbox_unknown')).toHaveLength(1);
    stream.close();
  });
});
