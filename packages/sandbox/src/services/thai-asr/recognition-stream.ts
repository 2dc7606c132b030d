/**
 * One recognition stream (`/api/thai-asr/stream`): the ready → start → audio → end → final protocol over
 * a WebSocket, with flush and reset, binary PCM16LE frames or JSON `audio_b64`, VAD `speech_start`,
 * partials every `partial_interval_ms` of audio and `stabilized_partial` once a partial repeats three
 * times. Limit breaches end the stream with 1008; protocol mistakes are `error` events that keep it open.
 */
import type { RawData, WebSocket } from 'ws';
import {
  BACKEND,
  LIMITS,
  limitsOf,
  type Session,
  type SessionConfig,
  SessionRequest,
  type ThaiAsrState,
} from './asr-sessions.js';
import { StreamRecognizer } from './stream-recognizer.js';

/** Opens a stream on an upgraded socket; `ready` always comes first, even when a limit then ends it. */
export function openRecognitionStream(state: ThaiAsrState, socket: WebSocket, session: Session): void {
  const stream = new RecognitionStream(state, socket, session);
  stream.send({
    type: 'ready',
    session_id: session.id,
    team_id: session.userId,
    backend: BACKEND,
    limits: limitsOf(state, session.userId),
    sample_rate: session.config.sample_rate,
  });
  const open = state.openSockets.get(session.userId) ?? new Set<WebSocket>();
  state.openSockets.set(session.userId, open);
  if (open.size >= LIMITS.concurrent_sessions) {
    stream.end(
      'concurrent_sessions_exceeded',
      `at most ${LIMITS.concurrent_sessions} concurrent sessions per key`,
    );
    return;
  }
  open.add(socket);
  socket.on('close', () => open.delete(socket));
  socket.on('error', () => open.delete(socket));
  socket.on('message', (data, isBinary) => stream.receive(data, isBinary));
}

const pcm16 = (bytes: Buffer) =>
  new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));

class RecognitionStream {
  private config: SessionConfig;
  private started = false;
  private recognizer: StreamRecognizer;
  private speechAnnounced = false;
  /** Audio position of the last partial, so that partials come every `partial_interval_ms` of audio. */
  private lastPartialAudioMs = 0;
  private lastPartial = '';
  /** How many partials in a row had the same text. */
  private repeats = 0;
  private stabilized = '';

  constructor(
    private readonly state: ThaiAsrState,
    private readonly socket: WebSocket,
    private readonly session: Session,
  ) {
    this.config = session.config;
    this.recognizer = new StreamRecognizer(this.config.sample_rate);
  }

  send(event: Record<string, unknown>): void {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(JSON.stringify(event));
  }

  /** A protocol mistake: reported, and the stream stays open. */
  fail(code: string, error: string): void {
    this.send({ type: 'error', code, error });
  }

  /** A limit breach: reported, then the stream is closed. */
  end(code: string, error: string): void {
    this.fail(code, error);
    this.socket.close(1008, code);
  }

  receive(data: RawData, isBinary: boolean): void {
    if (isBinary) {
      const bytes = Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]);
      if (!this.started) this.fail('not_started', 'send {"type":"start"} before audio');
      else if (bytes.length % 2 !== 0)
        this.fail('bad_audio', 'binary frames must be PCM16LE: an even number of bytes');
      else this.audio(pcm16(bytes));
      return;
    }
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(String(data)) as Record<string, unknown>;
      if (typeof message !== 'object' || message === null) throw new Error('not an object');
    } catch {
      this.fail('bad_message', 'messages must be JSON objects with a "type"');
      return;
    }
    this.command(message);
  }

  private command(message: Record<string, unknown>): void {
    switch (message.type) {
      case 'start':
        this.start(message);
        break;
      case 'audio':
        this.audioMessage(message);
        break;
      case 'flush':
        this.partial(performance.now(), true);
        break;
      case 'end':
      case 'end_utterance':
        if (!this.started) this.fail('not_started', 'send {"type":"start"} first');
        else this.finalize();
        break;
      case 'reset':
        this.reset();
        this.send({ type: 'reset_ok' });
        break;
      default:
        this.fail('unknown_type', `unknown message type ${String(message.type)}`);
    }
  }

  /** `start` may override the session's config (same fields and bounds as the session request). */
  private start(message: Record<string, unknown>): void {
    if (this.started) {
      this.fail('already_started', 'start is sent once');
      return;
    }
    const overrides = SessionRequest.safeParse(
      Object.fromEntries(Object.entries(message).filter(([key]) => key !== 'type')),
    );
    if (!overrides.success) {
      this.fail('bad_message', `invalid start config: ${overrides.error.issues[0]?.message}`);
      return;
    }
    const { benchmark_label, ...fields } = overrides.data;
    this.config = {
      ...this.config,
      ...fields,
      benchmark_label: benchmark_label ?? this.config.benchmark_label,
    };
    this.started = true;
    this.reset();
    this.send({ type: 'started', session_id: this.session.id, config: this.config });
  }

  /** Audio sent as JSON: PCM16LE bytes in base64. */
  private audioMessage(message: Record<string, unknown>): void {
    if (!this.started) {
      this.fail('not_started', 'send {"type":"start"} before audio');
      return;
    }
    const bytes = Buffer.from(String(message.audio_b64 ?? ''), 'base64');
    if (bytes.length === 0 || bytes.length % 2 !== 0)
      this.fail('bad_audio', 'audio_b64 must hold PCM16LE bytes');
    else this.audio(pcm16(bytes));
  }

  private reset(): void {
    this.recognizer = new StreamRecognizer(this.config.sample_rate);
    this.speechAnnounced = false;
    this.lastPartialAudioMs = 0;
    this.lastPartial = '';
    this.repeats = 0;
    this.stabilized = '';
  }

  private partial(received: number, force: boolean): void {
    const began = performance.now();
    const heard = this.recognizer.current(this.config.min_decode_audio_ms);
    const decodeMs = performance.now() - began;
    if (!heard.text) return;
    const timing = {
      audio_ms: Math.round(this.recognizer.audioMs),
      latency_ms: Math.round((performance.now() - received) * 10) / 10,
      queue_ms: 0,
      decode_ms: Math.round(decodeMs),
    };
    this.send({ type: 'partial', text: heard.text, segments: heard.segments, ...timing });
    this.repeats = heard.text === this.lastPartial ? this.repeats + 1 : 1;
    this.lastPartial = heard.text;
    if ((this.repeats >= 3 || force) && heard.text !== this.stabilized) {
      this.stabilized = heard.text;
      this.send({ type: 'stabilized_partial', text: heard.text, segments: heard.segments, ...timing });
    }
  }

  private audio(samples: Int16Array): void {
    const received = performance.now();
    const { audioSecondsToday } = this.state;
    const { userId } = this.session;
    const used = (audioSecondsToday.get(userId) ?? 0) + samples.length / this.config.sample_rate;
    audioSecondsToday.set(userId, used);
    if (used > LIMITS.daily_audio_seconds) {
      this.end('daily_audio_limit', `the key used its ${LIMITS.daily_audio_seconds} audio seconds for today`);
      return;
    }
    this.recognizer.push(samples);
    if (this.config.vad && !this.speechAnnounced && this.recognizer.speechStartSample !== undefined) {
      this.speechAnnounced = true;
      this.send({
        type: 'speech_start',
        offset_ms: Math.round((this.recognizer.speechStartSample * 1000) / this.config.sample_rate),
        latency_ms: Math.round((performance.now() - received) * 10) / 10,
      });
    }
    if (this.recognizer.audioMs - this.lastPartialAudioMs >= this.config.partial_interval_ms) {
      this.lastPartialAudioMs = this.recognizer.audioMs;
      this.partial(received, false);
    }
  }

  private finalize(): void {
    const began = performance.now();
    const heard = this.recognizer.finish();
    const processing = Math.round(performance.now() - began);
    this.send({
      type: 'final',
      session_id: this.session.id,
      engine: 'engine_t',
      backend: BACKEND,
      text: heard.text,
      segments: heard.segments,
      audio_ms: Math.round(this.recognizer.audioMs),
      latency_ms: processing,
      queue_ms: 0,
      decode_ms: processing,
      processing_time_ms: processing,
      audio_duration_ms: Math.round(this.recognizer.audioMs),
    });
    this.reset();
  }
}
