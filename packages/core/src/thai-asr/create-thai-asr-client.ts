/**
 * Client of streaming Thai recognition: the config and session routes (x-api-key, every session field
 * checked against the spec's ranges before sending), and a task verb, `transcribe`, that reads the config,
 * decodes the audio to PCM16 mono at the session rate, opens a session, connects, streams frames at
 * real-time pace (or faster), ends the utterance and returns the `final` text and segments.
 *
 * Captions follow the spec's rule: the stabilized partial when there is one, otherwise the partial; the
 * transcript itself comes only from `final` — except when the call's deadline (or a server that stopped
 * answering) ends the session first: then `transcribe` returns what it has, the finals so far and the
 * newest partial, flagged `complete: false`, instead of throwing it away.
 *
 * Choices where the spec is silent:
 * - Session creation allocates a realtime slot (the key has a few concurrent sessions), so it is not
 *   treated as idempotent: it is sent again only when the failure proves it never arrived (connection
 *   refused, DNS) or after an explicit 429.
 * - With a deadline, audio stops a little before it (`finalReserveMs`) and the utterance is ended, so that
 *   the `final` for the audio already sent can still arrive in time; the result is then incomplete but
 *   final for what it covers.
 * - A frame that is not a JSON event is skipped and counted (`skippedEvents`), not fatal (see the
 *   streaming session).
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
import { StreamingError, TimeoutError, ValidationError } from '../errors/index.js';
import type { FileAccess } from '../files/index.js';
import type { HttpClient } from '../http/index.js';
import {
  createStreamingSession,
  type StreamingSession,
  type StreamingSessionOptions,
} from '../streaming/index.js';

/** Without a deadline, `final` is awaited this long after `end`. */
const FINAL_TIMEOUT_WITHOUT_DEADLINE_MS = 30_000;
/** With a deadline, audio stops this long before it so that the `final` can still come (see finalReserveMs). */
const DEFAULT_FINAL_RESERVE_MS = 3_000;

/** Per-call options of the HTTP routes. */
export interface ThaiAsrCallOptions {
  signal?: AbortSignal;
  /** When the call must be over (epoch ms); the request is cut there and no retry starts past it. */
  deadline?: number | undefined;
}

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
  /** Seconds of audio in the input. */
  totalAudioSeconds: number;
  /** Seconds of the input the text covers (what the recogniser reported hearing, at most what was sent). */
  coveredSeconds: number;
  /** False when the session ended before a `final` for the whole input. */
  complete: boolean;
  /** Why it is incomplete: the call's deadline came, or the server stopped answering. */
  incompleteReason?: 'deadline' | 'stalled';
  /** Frames from the server that were not events and were skipped. */
  skippedEvents: number;
  /** The last `final` event as received (latency fields included); absent when none came. */
  final: ThaiAsrEvent | undefined;
}

export interface ThaiAsrConnectOptions {
  signal?: AbortSignal;
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
  /** config → session → connect → start → paced audio → end → final; returns early at the deadline. */
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

  async function config(call: ThaiAsrCallOptions = {}): Promise<ThaiAsrConfig> {
    const response = await http.request({
      method: 'GET',
      path: `${THAI_ASR_API_PATH}/config`,
      schema: ThaiAsrConfig,
      idempotent: true,
      deadline: call.deadline,
      ...(call.signal ? { signal: call.signal } : {}),
    });
    return response.data;
  }

  async function createSession(request: ThaiAsrSessionRequest = {}, call: ThaiAsrCallOptions = {}) {
    const parsed = ThaiAsrSessionRequest.safeParse(request);
    if (!parsed.success) throw validationErrorOf('recognition session', parsed.error.issues);
    const response = await http.request({
      method: 'POST',
      path: `${THAI_ASR_API_PATH}/sessions`,
      json: parsed.data,
      schema: ThaiAsrSession,
      // Not idempotent: a session holds one of the key's few concurrent realtime slots, and the spec does
      // not say when an unused one is released. A creation that may have arrived is not sent again; one
      // that provably never arrived (refused, DNS) or was declined with a 429 is.
      idempotent: false,
      deadline: call.deadline,
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
      ...(call.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: call.idleTimeoutMs }),
      ...(call.audioEncoding ? { audioEncoding: call.audioEncoding } : {}),
      ...(call.deadline === undefined ? {} : { deadline: call.deadline }),
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
    const { deadline } = request;
    const signalOption = request.signal ? { signal: request.signal } : {};
    const callOptions = { ...signalOption, deadline };

    const defaults = (await config(callOptions)).defaults;
    const sampleRate =
      sessionFields.data.sample_rate ?? defaults?.sample_rate ?? THAI_ASR_DEFAULTS.sample_rate;
    const chunkMs = request.chunkMs ?? defaults?.stream_chunk_ms ?? THAI_ASR_DEFAULTS.stream_chunk_ms;
    // Decoded (and checked) before a session exists: a bad file costs nothing.
    const samples = request.samples ?? (await decodeBeforeDeadline(request.file as string, sampleRate));
    if (samples.length === 0) {
      throw new ValidationError('The audio holds no samples; nothing to transcribe.', [
        { path: 'file', message: 'empty audio' },
      ]);
    }
    // Taken from the time the call still has once the audio is ready, so a short call keeps time to stream.
    const reserveMs =
      deadline === undefined
        ? 0
        : Math.min(
            request.finalReserveMs ?? DEFAULT_FINAL_RESERVE_MS,
            Math.max(0, (deadline - Date.now()) / 4),
          );
    const session = await createSession({ ...sessionFields.data, sample_rate: sampleRate }, callOptions);
    const stream = await connect(session, {
      ...callOptions,
      ...(request.readyTimeoutMs === undefined ? {} : { readyTimeoutMs: request.readyTimeoutMs }),
      ...(request.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: request.idleTimeoutMs }),
      ...(request.audioEncoding ? { audioEncoding: request.audioEncoding } : {}),
    });

    const finals: ThaiAsrEvent[] = [];
    /** The newest partial hypothesis since the last final: the text an incomplete result ends with. */
    let hypothesis: ThaiAsrEvent | undefined;
    let heardMs = 0;
    /** Samples sent so far: kept up to date by `streamAudio`, also when a stall or the deadline ends it. */
    const progress = { sentSamples: 0 };
    let incompleteReason: TranscribeResult['incompleteReason'];
    try {
      const onPartial = request.onPartial ?? request.onCaption;
      let stabilized = '';
      stream.onEvent((event) => {
        request.onEvent?.(event);
        if (typeof event.audio_ms === 'number') heardMs = Math.max(heardMs, event.audio_ms);
        if (event.type === 'final') {
          finals.push(event);
          hypothesis = undefined;
          stabilized = '';
          return;
        }
        if (!event.text) return;
        if (event.type === 'stabilized_partial') {
          stabilized = event.text;
          hypothesis = event;
          onPartial?.(event.text, event);
        } else if (event.type === 'partial') {
          hypothesis = event;
          if (event.text !== stabilized) onPartial?.(event.text, event);
        }
      });
      await stream.start({ ...sessionFields.data, sample_rate: sampleRate });
      await streamAudio(stream, samples, progress, {
        sampleRate,
        chunkMs,
        speed,
        ...(deadline === undefined ? {} : { stopAt: deadline - reserveMs }),
        ...signalOption,
      });
      const finalTimeoutMs =
        request.finalTimeoutMs ??
        (deadline === undefined ? FINAL_TIMEOUT_WITHOUT_DEADLINE_MS : Math.max(0, deadline - Date.now()));
      await stream.end({ timeoutMs: finalTimeoutMs });
      if (progress.sentSamples < samples.length) incompleteReason = 'deadline';
    } catch (error) {
      incompleteReason = incompleteReasonOf(error, request.signal);
      if (!incompleteReason) {
        await stream.close();
        throw error;
      }
    }
    const skippedEvents = stream.skippedEvents;
    await stream.close();

    const audioSeconds = progress.sentSamples / sampleRate;
    const final = finals.at(-1);
    const pieces = [...finals, ...(hypothesis ? [hypothesis] : [])];
    const segments = pieces.flatMap((event) => event.segments ?? []);
    const lastSegmentEnd = segments.at(-1)?.end ?? 0;
    // A final covers everything sent before `end`; a partial only what the server says it has heard.
    const heardSeconds =
      incompleteReason === undefined || (final && !hypothesis) ? audioSeconds : heardMs / 1000;
    return {
      sessionId: session.session_id,
      text: pieces
        .map((event) => event.text ?? '')
        .filter((text) => text !== '')
        .join(' '),
      segments,
      audioSeconds,
      totalAudioSeconds: samples.length / sampleRate,
      coveredSeconds: Math.min(audioSeconds, Math.max(heardSeconds, lastSegmentEnd)),
      complete: incompleteReason === undefined,
      ...(incompleteReason === undefined ? {} : { incompleteReason }),
      skippedEvents,
      final,
    };

    /** Decodes the file, giving up at the deadline (nothing has been sent yet, so nothing is returned). */
    async function decodeBeforeDeadline(file: string, rate: number): Promise<Int16Array> {
      const path = files ? await files.resolveReadable(file) : file;
      if (deadline === undefined) return decodeAudioFile(path, { sampleRate: rate, ...signalOption });
      const expiry = new AbortController();
      const timer = setTimeout(() => expiry.abort(), Math.max(0, deadline - Date.now()));
      try {
        return await decodeAudioFile(path, {
          sampleRate: rate,
          signal: request.signal ? AbortSignal.any([request.signal, expiry.signal]) : expiry.signal,
        });
      } catch (error) {
        if (expiry.signal.aborted && !request.signal?.aborted) {
          throw new TimeoutError(
            "The audio could not be decoded before the call's deadline; nothing was sent.",
            0,
            { deadlineReached: true },
          );
        }
        throw error;
      } finally {
        clearTimeout(timer);
      }
    }
  }

  return { config, createSession, connect, transcribe };
}

/**
 * Streams the samples at the given pace until they are all sent or `stopAt` (epoch ms) comes, counting
 * what went out in `progress` as it goes (a failure half-way still leaves the count right). The caller's
 * abort is rethrown; `stopAt` only ends the loop.
 */
async function streamAudio(
  stream: StreamingSession,
  samples: Int16Array,
  progress: { sentSamples: number },
  options: { sampleRate: number; chunkMs: number; speed: number; stopAt?: number; signal?: AbortSignal },
): Promise<void> {
  const stop = new AbortController();
  const timer =
    options.stopAt === undefined
      ? undefined
      : setTimeout(() => stop.abort(), Math.max(0, options.stopAt - Date.now()));
  try {
    for await (const frame of paceAudio(samples, {
      sampleRate: options.sampleRate,
      frameMs: options.chunkMs,
      speed: options.speed,
      signal: options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal,
    })) {
      if (stop.signal.aborted) break;
      await stream.sendAudio(frame);
      progress.sentSamples += frame.length;
    }
  } catch (error) {
    if (options.signal?.aborted || !stop.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether a failure while streaming leaves a result worth returning: the deadline came (whoever noticed
 * it), or the server stopped answering. The caller's abort and every other failure are rethrown.
 */
function incompleteReasonOf(
  error: unknown,
  signal: AbortSignal | undefined,
): TranscribeResult['incompleteReason'] {
  if (signal?.aborted) return undefined;
  if (TimeoutError.isInstance(error) && error.deadlineReached) return 'deadline';
  if (StreamingError.isInstance(error) && error.code === 'stalled') return 'stalled';
  return undefined;
}
