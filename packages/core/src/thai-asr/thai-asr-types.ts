/** The Thai recognition client's public shape: its methods, their options and their results. */
import type {
  ThaiAsrConfig,
  ThaiAsrEvent,
  ThaiAsrSegment,
  ThaiAsrSession,
  ThaiAsrSessionRequest,
} from '../contracts/thai-asr.js';
import type { FileAccess } from '../files/create-file-access.js';
import type { CallOptions } from '../http/call-options.js';
import type { HttpClient } from '../http/http-client.js';
import type { StreamingSession, StreamingSessionOptions } from '../streaming/streaming-session-types.js';

/** Per-call options of the HTTP routes: `signal`, `timeout`, `maxRetries`, and an epoch-ms `deadline`. */
export interface ThaiAsrCallOptions extends CallOptions {
  /** When the call must be over (epoch ms); the request is cut there and no retry starts past it. */
  deadline?: number | undefined;
}

/**
 * `timeout` bounds the whole transcription (requests, streaming and the wait for `final`) like `deadline`;
 * `maxRetries` applies to the config and session requests.
 */
export interface TranscribeOptions extends CallOptions {
  /**
   * Local audio file: WAV of any rate/depth/channels, or anything ffmpeg reads when it is installed. It is
   * opened once (through the client's FileAccess when it has one), checked before any request, and
   * decoded block by block while it streams.
   */
  file?: string;
  /** Or PCM16 mono samples already at the session's sample rate (`session.sample_rate`, default 16 kHz). */
  samples?: Int16Array;
  /**
   * The longest audio to stream (default MAX_TRANSCRIBE_AUDIO_SECONDS, 3600 s): longer input is refused
   * before any request; input of unknown length stops there (`incompleteReason: 'limit'`).
   */
  maxAudioSeconds?: number;
  /** The ffmpeg executable for formats other than WAV (default `ffmpeg` on PATH). */
  ffmpegPath?: string;
  /** The ffprobe executable that times them first (default: beside ffmpegPath, else `ffprobe` on PATH). */
  ffprobePath?: string;
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
  /** The caller's cancellation: ends everything at once and rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * When the call must be over (epoch ms). The config and session requests are cut there; once streaming,
   * the session is ended and closed (bounded) and the result so far is returned with `complete: false`.
   */
  deadline?: number | undefined;
  /** Wait for `ready` at most this long (default 10 s). */
  readyTimeoutMs?: number;
  /** Wait for `final` after `end` at most this long (default: until the deadline; 30 s without one). */
  finalTimeoutMs?: number;
  /**
   * With a deadline: stop sending audio this long before it and end the utterance, so that the `final` of
   * the audio sent can still arrive (default 3 s, at most a quarter of the time the call has).
   */
  finalReserveMs?: number;
  /** A server that sends no event for this long while it owes one is stalled (default 10 s). */
  idleTimeoutMs?: number;
}

export interface TranscribeResult {
  sessionId: string;
  /**
   * The transcript: the `final` text when complete. When incomplete, the finals received plus the newest
   * partial hypothesis (not persisted text by the spec's rule; read `complete`).
   */
  text: string;
  segments: ThaiAsrSegment[];
  /** Seconds of audio streamed. */
  audioSeconds: number;
  /**
   * Seconds of audio in the input: exact for WAV and samples, from the container for other formats (at
   * least what was streamed when the container does not say).
   */
  totalAudioSeconds: number;
  /** Seconds of the input the text covers (what the recogniser reported hearing, at most what was sent). */
  coveredSeconds: number;
  /** False when the session ended before a `final` for the whole input. */
  complete: boolean;
  /**
   * Why it is incomplete: the call's deadline came, the server stopped answering, or input of unknown
   * length reached the most one transcription streams (`maxAudioSeconds`, or the key's audio left today).
   */
  incompleteReason?: 'deadline' | 'stalled' | 'limit';
  /** Frames from the server that were not events and were skipped. */
  skippedEvents: number;
  /** The last `final` event as received (latency fields included); absent when none came. */
  final: ThaiAsrEvent | undefined;
}

/**
 * `timeout` bounds the wait for `ready` and every later wait of the session, like `deadline`; `maxRetries`
 * does not apply (a WebSocket connection is not retried: it would take another of the key's sessions).
 */
export interface ThaiAsrConnectOptions extends CallOptions {
  /** Bounds the wait for `ready` and every later wait of the session (epoch ms). */
  deadline?: number | undefined;
  readyTimeoutMs?: number;
  idleTimeoutMs?: number;
  audioEncoding?: StreamingSessionOptions['audioEncoding'];
}

export interface ThaiAsrClient {
  /** `GET /api/thai-asr/config`: defaults, limits and tenant. */
  config(options?: ThaiAsrCallOptions): Promise<ThaiAsrConfig>;
  /**
   * `POST /api/thai-asr/sessions`; invalid fields → ValidationError, nothing sent. Not repeated after it
   * may have arrived (it allocates a realtime slot).
   */
  createSession(request?: ThaiAsrSessionRequest, options?: ThaiAsrCallOptions): Promise<ThaiAsrSession>;
  /** Connects to a session's `ws_url` (key as `api_key`) and resolves once `ready` arrives. */
  connect(session: ThaiAsrSession, options?: ThaiAsrConnectOptions): Promise<StreamingSession>;
  /**
   * local checks of the file → config → session → connect → start → paced audio → end → final; returns
   * early at the deadline. A file that is missing, outside the allowed directories, not a regular file,
   * empty, not decodable or too long is refused with a ValidationError before any request.
   */
  transcribe(options: TranscribeOptions): Promise<TranscribeResult>;
}

export interface ThaiAsrClientOptions {
  http: HttpClient;
  /** Sent as `api_key` in the WebSocket URL, only to the platform's own host. */
  apiKey: string;
  files?: FileAccess;
}
