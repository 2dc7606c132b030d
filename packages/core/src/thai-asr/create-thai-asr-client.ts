/**
 * Client of streaming Thai recognition: the config and session routes (x-api-key, every session field
 * checked against the spec's ranges before sending), and a task verb, `transcribe`, that reads the config,
 * decodes the audio to PCM16 mono at the session rate, opens a session, connects, streams frames at
 * real-time pace (or faster), ends the utterance and returns the `final` text and segments.
 *
 * Captions follow the spec's rule: the stabilized partial when there is one, otherwise the partial; the
 * transcript itself comes only from `final`.
 */
import { decodeAudioFile, paceAudio } from '../audio/index.js';
import {
  THAI_ASR_API_PATH,
  THAI_ASR_DEFAULTS,
  ThaiAsrConfig,
  type ThaiAsrEvent,
  type ThaiAsrSegment,
  ThaiAsrSession,
  ThaiAsrSessionRequest,
} from '../contracts/thai-asr.js';
import { ValidationError } from '../errors/index.js';
import type { FileAccess } from '../files/index.js';
import type { HttpClient } from '../http/index.js';
import {
  createStreamingSession,
  type StreamingSession,
  type StreamingSessionOptions,
} from '../streaming/index.js';

export interface TranscribeOptions {
  /** Local audio file: WAV of any rate/depth/channels, or anything ffmpeg reads when it is installed. */
  file?: string;
  /** Or PCM16 mono samples already at the session's sample rate (`session.sample_rate`, default 16 kHz). */
  samples?: Int16Array;
  /** Session fields (checked before anything is sent); omitted ones take the server's defaults. */
  session?: ThaiAsrSessionRequest;
  /** 1 = real time (default), 4 = four times faster, 0 = as fast as the socket takes it. */
  speed?: number;
  /** Audio per WebSocket message (default: the config's `stream_chunk_ms`, else 80 ms). */
  chunkMs?: number;
  /** Binary frames (default) or the JSON `audio_b64` fallback. */
  audioEncoding?: StreamingSessionOptions['audioEncoding'];
  /** Caption updates: the stabilized partial when available, else the partial. Not the transcript. */
  onPartial?: (text: string, event: ThaiAsrEvent) => void;
  /** @deprecated Same as `onPartial`. */
  onCaption?: (text: string, event: ThaiAsrEvent) => void;
  /** Every server event, in order. */
  onEvent?: (event: ThaiAsrEvent) => void;
  signal?: AbortSignal;
  /** Wait for `ready` at most this long (default 10 s). */
  readyTimeoutMs?: number;
  /** Wait for `final` after `end` at most this long (default 30 s). */
  finalTimeoutMs?: number;
}

export interface TranscribeResult {
  sessionId: string;
  /** The `final` text: the persisted transcript. */
  text: string;
  segments: ThaiAsrSegment[];
  /** Seconds of audio streamed. */
  audioSeconds: number;
  /** The `final` event as received (latency fields included). */
  final: ThaiAsrEvent;
}

export interface ThaiAsrConnectOptions {
  signal?: AbortSignal;
  readyTimeoutMs?: number;
  audioEncoding?: StreamingSessionOptions['audioEncoding'];
}

export interface ThaiAsrClient {
  /** `GET /api/thai-asr/config`: defaults, limits and tenant. */
  config(options?: { signal?: AbortSignal }): Promise<ThaiAsrConfig>;
  /** `POST /api/thai-asr/sessions`; invalid fields → ValidationError, nothing sent. */
  createSession(request?: ThaiAsrSessionRequest, options?: { signal?: AbortSignal }): Promise<ThaiAsrSession>;
  /** Connects to a session's `ws_url` (key as `api_key`) and resolves once `ready` arrives. */
  connect(session: ThaiAsrSession, options?: ThaiAsrConnectOptions): Promise<StreamingSession>;
  /** config → session → connect → start → paced audio → end → final. */
  transcribe(options: TranscribeOptions): Promise<TranscribeResult>;
}

function validationErrorOf(what: string, issues: readonly { path: PropertyKey[]; message: string }[]) {
  const list = issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
  return new ValidationError(
    `Invalid ${what}: ${list.map((issue) => `${issue.path || '(root)'}: ${issue.message}`).join('; ')}. Nothing was sent.`,
    list,
  );
}

export function createThaiAsrClient(options: {
  http: HttpClient;
  apiKey: string;
  files?: FileAccess;
}): ThaiAsrClient {
  const { http, files } = options;

  async function config(call: { signal?: AbortSignal } = {}): Promise<ThaiAsrConfig> {
    const response = await http.request({
      method: 'GET',
      path: `${THAI_ASR_API_PATH}/config`,
      schema: ThaiAsrConfig,
      idempotent: true,
      ...(call.signal ? { signal: call.signal } : {}),
    });
    return response.data;
  }

  async function createSession(request: ThaiAsrSessionRequest = {}, call: { signal?: AbortSignal } = {}) {
    const parsed = ThaiAsrSessionRequest.safeParse(request);
    if (!parsed.success) throw validationErrorOf('recognition session', parsed.error.issues);
    const response = await http.request({
      method: 'POST',
      path: `${THAI_ASR_API_PATH}/sessions`,
      json: parsed.data,
      schema: ThaiAsrSession,
      // A session costs nothing until audio flows; repeating a lost creation only leaves an unused session.
      idempotent: true,
      ...(call.signal ? { signal: call.signal } : {}),
    });
    return response.data;
  }

  function connect(session: ThaiAsrSession, call: ThaiAsrConnectOptions = {}): Promise<StreamingSession> {
    const base = new URL(http.baseUrl);
    const wsUrl = new URL(session.ws_url, `${base.protocol === 'https:' ? 'wss:' : 'ws:'}//${base.host}`);
    // The key travels in the WebSocket URL: never to another host than the platform's.
    if (wsUrl.host !== base.host || !['ws:', 'wss:'].includes(wsUrl.protocol)) {
      throw new ValidationError(
        `The session's ws_url points at ${wsUrl.protocol}//${wsUrl.host}, not the platform's host; refusing to send the key there.`,
        [{ path: 'ws_url', message: 'not the platform host' }],
      );
    }
    return createStreamingSession({
      wsUrl: wsUrl.toString(),
      apiKey: options.apiKey,
      ...(call.readyTimeoutMs === undefined ? {} : { readyTimeoutMs: call.readyTimeoutMs }),
      ...(call.audioEncoding ? { audioEncoding: call.audioEncoding } : {}),
      ...(call.signal ? { signal: call.signal } : {}),
    });
  }

  async function transcribe(request: TranscribeOptions): Promise<TranscribeResult> {
    if ((request.file === undefined) === (request.samples === undefined)) {
      throw new ValidationError('Give either file or samples to transcribe (exactly one).', [
        { path: 'file', message: 'exactly one of file and samples' },
      ]);
    }
    const speed = request.speed ?? 1;
    if (!Number.isFinite(speed) || speed < 0) {
      throw new ValidationError('speed must be 0 (unpaced) or more; 1 is real time.', [
        { path: 'speed', message: 'must be >= 0' },
      ]);
    }
    if (request.chunkMs !== undefined && !(request.chunkMs >= 10 && request.chunkMs <= 1000)) {
      throw new ValidationError('chunkMs must be between 10 and 1000.', [
        { path: 'chunkMs', message: '10 to 1000' },
      ]);
    }
    const sessionFields = ThaiAsrSessionRequest.safeParse(request.session ?? {});
    if (!sessionFields.success) throw validationErrorOf('recognition session', sessionFields.error.issues);
    const signalOption = request.signal ? { signal: request.signal } : {};

    const defaults = (await config(signalOption)).defaults;
    const sampleRate =
      sessionFields.data.sample_rate ?? defaults?.sample_rate ?? THAI_ASR_DEFAULTS.sample_rate;
    const chunkMs = request.chunkMs ?? defaults?.stream_chunk_ms ?? THAI_ASR_DEFAULTS.stream_chunk_ms;
    // Decoded (and checked) before a session exists: a bad file costs nothing.
    const samples =
      request.samples ??
      (await decodeAudioFile(
        files ? await files.resolveReadable(request.file as string) : (request.file as string),
        {
          sampleRate,
          ...signalOption,
        },
      ));
    if (samples.length === 0) {
      throw new ValidationError('The audio holds no samples; nothing to transcribe.', [
        { path: 'file', message: 'empty audio' },
      ]);
    }
    const session = await createSession({ ...sessionFields.data, sample_rate: sampleRate }, signalOption);
    const stream = await connect(session, {
      ...signalOption,
      ...(request.readyTimeoutMs === undefined ? {} : { readyTimeoutMs: request.readyTimeoutMs }),
      ...(request.audioEncoding ? { audioEncoding: request.audioEncoding } : {}),
    });
    try {
      const onPartial = request.onPartial ?? request.onCaption;
      let stabilized = '';
      stream.onEvent((event) => {
        request.onEvent?.(event);
        if (!event.text) return;
        if (event.type === 'stabilized_partial') {
          stabilized = event.text;
          onPartial?.(event.text, event);
        } else if (event.type === 'partial' && event.text !== stabilized) {
          onPartial?.(event.text, event);
        }
      });
      await stream.start({ ...sessionFields.data, sample_rate: sampleRate });
      for await (const frame of paceAudio(samples, {
        sampleRate,
        frameMs: chunkMs,
        speed,
        ...signalOption,
      })) {
        await stream.sendAudio(frame);
      }
      const final = await stream.end({ timeoutMs: request.finalTimeoutMs ?? 30_000 });
      return {
        sessionId: session.session_id,
        text: final.text ?? '',
        segments: final.segments ?? [],
        audioSeconds: samples.length / sampleRate,
        final,
      };
    } finally {
      await stream.close();
    }
  }

  return { config, createSession, connect, transcribe };
}
