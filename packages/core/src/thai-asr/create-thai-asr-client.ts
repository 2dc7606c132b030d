/**
 * Client of streaming Thai recognition: the config and session routes (x-api-key, every session field
 * checked against the spec's ranges before sending), and a task verb, `transcribe`, that checks the audio
 * file locally (opened once, a regular non-empty file, its header read and its duration within the limit),
 * then reads the config (the key's daily audio left), opens a session, connects, and streams frames at
 * real-time pace (or faster) as they are decoded from the file — never the whole file in memory — ends
 * the utterance and returns the `final` text and segments.
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

import type { z } from 'zod';
import { type AudioFile, openAudioFile } from '../audio/open-audio-file.js';
import { paceAudio } from '../audio/pace-audio.js';
import { THAI_ASR_API_PATH } from '../constants/service-table.js';
import {
  THAI_ASR_DEFAULTS,
  ThaiAsrConfig,
  type ThaiAsrEvent,
  type ThaiAsrSegment,
  ThaiAsrSession,
  ThaiAsrSessionRequest,
} from '../contracts/thai-asr.js';
import { describeIssues, listIssues } from '../errors/describe-issues.js';
import { StreamingError, TimeoutError, ValidationError } from '../errors/polymodal-error.js';
import type { FileAccess } from '../files/create-file-access.js';
import { type CallOptions, requestOptionsOf, startCall } from '../http/call-options.js';
import type { HttpClient } from '../http/http-client.js';
import {
  createStreamingSession,
  type StreamingSession,
  type StreamingSessionOptions,
} from '../streaming/create-streaming-session.js';
import {
  checkAudioLength,
  checkDailyAllowance,
  MAX_TRANSCRIBE_AUDIO_SECONDS,
  remainingDailySeconds,
} from './check-audio-length.js';

/** Without a deadline, `final` is awaited this long after `end`. */
const FINAL_TIMEOUT_WITHOUT_DEADLINE_MS = 30_000;
/** With a deadline, audio stops this long before it so that the `final` can still come (see finalReserveMs). */
const DEFAULT_FINAL_RESERVE_MS = 3_000;

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

function validationErrorOf(what: string, error: z.ZodError, input: unknown) {
  const issues = describeIssues(error, input);
  return new ValidationError(`Invalid ${what}: ${listIssues(issues)}. Nothing was sent.`, issues);
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
      ...requestOptionsOf(call),
    });
    return response.data;
  }

  async function createSession(request: ThaiAsrSessionRequest = {}, call: ThaiAsrCallOptions = {}) {
    const parsed = ThaiAsrSessionRequest.safeParse(request);
    if (!parsed.success) throw validationErrorOf('recognition session', parsed.error, request);
    const response = await http.request({
      method: 'POST',
      path: `${THAI_ASR_API_PATH}/sessions`,
      json: parsed.data,
      schema: ThaiAsrSession,
      // Not idempotent: a session holds one of the key's few concurrent realtime slots, and the spec does
      // not say when an unused one is released. A creation that may have arrived is not sent again; one
      // that provably never arrived (refused, DNS) or was declined with a 429 is.
      idempotent: false,
      ...requestOptionsOf(call),
    });
    return response.data;
  }

  function connect(
    session: ThaiAsrSession,
    connectOptions: ThaiAsrConnectOptions = {},
  ): Promise<StreamingSession> {
    const call = startCall(connectOptions);
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

  async function transcribe(transcribeOptions: TranscribeOptions): Promise<TranscribeResult> {
    // `timeout` bounds the whole call: from here on it is the `deadline`.
    const request = startCall(transcribeOptions);
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
    if (!sessionFields.success)
      throw validationErrorOf('recognition session', sessionFields.error, request.session ?? {});
    const maxAudioSeconds = request.maxAudioSeconds ?? MAX_TRANSCRIBE_AUDIO_SECONDS;
    if (!(maxAudioSeconds > 0)) {
      throw new ValidationError('maxAudioSeconds must be more than 0.', [
        { path: 'maxAudioSeconds', message: 'must be > 0' },
      ]);
    }
    if (request.samples?.length === 0) {
      throw new ValidationError('The audio holds no samples; nothing to transcribe. Nothing was sent.', [
        { path: 'samples', message: 'empty audio' },
      ]);
    }
    const { deadline } = request;
    const signalOption = request.signal ? { signal: request.signal } : {};
    const callOptions = { ...signalOption, deadline, maxRetries: request.maxRetries };

    // Everything about the input is checked before the first request: a bad or too long file costs nothing.
    const audio = request.file === undefined ? undefined : await openBeforeDeadline(request.file);
    try {
      const name = audio?.path ?? 'The audio';
      /** Seconds of input, before the session's rate is known (samples: at the requested or default rate). */
      const inputSeconds = (rate: number) =>
        audio ? audio.durationSeconds : (request.samples as Int16Array).length / rate;
      try {
        checkAudioLength({
          name,
          seconds: inputSeconds(sessionFields.data.sample_rate ?? THAI_ASR_DEFAULTS.sample_rate),
          maxSeconds: maxAudioSeconds,
          ...(audio ? { size: audio.size } : {}),
          ...(audio?.durationUnknownBecause ? { unknownBecause: audio.durationUnknownBecause } : {}),
        });
      } catch (error) {
        throw nothingSent(error);
      }

      const platformConfig = await config(callOptions);
      const defaults = platformConfig.defaults;
      const sampleRate =
        sessionFields.data.sample_rate ?? defaults?.sample_rate ?? THAI_ASR_DEFAULTS.sample_rate;
      const chunkMs = request.chunkMs ?? defaults?.stream_chunk_ms ?? THAI_ASR_DEFAULTS.stream_chunk_ms;
      checkDailyAllowance({ name, seconds: inputSeconds(sampleRate), limits: platformConfig.limits });
      // Input of unknown length stops where a known length would have been refused.
      const maxSamples = Math.floor(
        Math.min(maxAudioSeconds, remainingDailySeconds(platformConfig.limits) ?? Number.POSITIVE_INFINITY) *
          sampleRate,
      );
      const expectedSamples = audio
        ? (audio.samplesAt(sampleRate) ??
          (audio.durationSeconds === undefined ? undefined : Math.round(audio.durationSeconds * sampleRate)))
        : (request.samples as Int16Array).length;
      return await streamTranscription({
        sessionFields: sessionFields.data,
        sampleRate,
        chunkMs,
        maxSamples,
        expectedSamples,
        source: audio
          ? (signal: AbortSignal) => audio.decode({ sampleRate, signal })
          : (request.samples as Int16Array),
      });
    } finally {
      await audio?.close();
    }

    /** Opens and checks the file, giving up at the deadline (nothing has been sent yet). */
    async function openBeforeDeadline(file: string): Promise<AudioFile> {
      const expiry = new AbortController();
      const timer =
        deadline === undefined
          ? undefined
          : setTimeout(() => expiry.abort(), Math.max(0, deadline - Date.now()));
      try {
        return await openAudioFile(file, {
          ...(files ? { open: (path: string) => files.openReadable(path) } : {}),
          ...(request.ffmpegPath ? { ffmpegPath: request.ffmpegPath } : {}),
          ...(request.ffprobePath ? { ffprobePath: request.ffprobePath } : {}),
          signal: request.signal ? AbortSignal.any([request.signal, expiry.signal]) : expiry.signal,
        });
      } catch (error) {
        if (expiry.signal.aborted && !request.signal?.aborted) {
          throw new TimeoutError(
            "The audio file could not be checked before the call's deadline; nothing was sent.",
            0,
            { deadlineReached: true },
          );
        }
        throw nothingSent(error);
      } finally {
        clearTimeout(timer);
      }
    }

    async function streamTranscription(plan: {
      sessionFields: ThaiAsrSessionRequest;
      sampleRate: number;
      chunkMs: number;
      maxSamples: number;
      /** Samples the input holds, when known (exactly for WAV and samples, estimated from ffprobe). */
      expectedSamples: number | undefined;
      source: AudioSource;
    }): Promise<TranscribeResult> {
      const { sampleRate } = plan;
      // Taken from the time the call still has once the input is checked, so a short call keeps time to stream.
      const reserveMs =
        deadline === undefined
          ? 0
          : Math.min(
              request.finalReserveMs ?? DEFAULT_FINAL_RESERVE_MS,
              Math.max(0, (deadline - Date.now()) / 4),
            );
      const session = await createSession({ ...plan.sessionFields, sample_rate: sampleRate }, callOptions);
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
      const progress = { sentSamples: 0, ended: false };
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
        await stream.start({ ...plan.sessionFields, sample_rate: sampleRate });
        const outcome = await streamAudio(stream, plan.source, progress, {
          sampleRate,
          chunkMs: plan.chunkMs,
          speed,
          maxSamples: plan.maxSamples,
          ...(deadline === undefined ? {} : { stopAt: deadline - reserveMs }),
          ...signalOption,
        });
        const finalTimeoutMs =
          request.finalTimeoutMs ??
          (deadline === undefined ? FINAL_TIMEOUT_WITHOUT_DEADLINE_MS : Math.max(0, deadline - Date.now()));
        await stream.end({ timeoutMs: finalTimeoutMs });
        if (outcome === 'stopped') incompleteReason = 'deadline';
        if (outcome === 'limit') incompleteReason = 'limit';
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
      // Once the input ran out, what was sent is exactly what it held.
      const totalSamples = progress.ended
        ? progress.sentSamples
        : Math.max(plan.expectedSamples ?? 0, progress.sentSamples);
      return {
        sessionId: session.session_id,
        text: pieces
          .map((event) => event.text ?? '')
          .filter((text) => text !== '')
          .join(' '),
        segments,
        audioSeconds,
        totalAudioSeconds: totalSamples / sampleRate,
        coveredSeconds: Math.min(audioSeconds, Math.max(heardSeconds, lastSegmentEnd)),
        complete: incompleteReason === undefined,
        ...(incompleteReason === undefined ? {} : { incompleteReason }),
        skippedEvents,
        final,
      };
    }
  }

  return { config, createSession, connect, transcribe };
}

/**
 * Samples in memory, or a decoder started with a signal that ends it (at the caller's abort, and at the
 * point where streaming must stop for the deadline, even while it waits on a slow ffmpeg).
 */
type AudioSource = Int16Array | ((signal: AbortSignal) => AsyncIterable<Int16Array>);

/**
 * Streams the audio at the given pace, as the source yields it, until it runs out (`done`), `stopAt`
 * (epoch ms) comes (`stopped`) or `maxSamples` were sent (`limit`), counting what went out in `progress`
 * as it goes (a failure half-way still leaves the count right). The caller's abort is rethrown; `stopAt`
 * only ends the loop. Leaving the loop early stops the source (and its decoder).
 */
async function streamAudio(
  stream: StreamingSession,
  source: AudioSource,
  progress: { sentSamples: number; ended: boolean },
  options: {
    sampleRate: number;
    chunkMs: number;
    speed: number;
    maxSamples: number;
    stopAt?: number;
    signal?: AbortSignal;
  },
): Promise<'done' | 'stopped' | 'limit'> {
  const stop = new AbortController();
  const timer =
    options.stopAt === undefined
      ? undefined
      : setTimeout(() => stop.abort(), Math.max(0, options.stopAt - Date.now()));
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  try {
    for await (const frame of paceAudio(typeof source === 'function' ? source(signal) : source, {
      sampleRate: options.sampleRate,
      frameMs: options.chunkMs,
      speed: options.speed,
      signal,
    })) {
      if (stop.signal.aborted) return 'stopped';
      const room = options.maxSamples - progress.sentSamples;
      if (room <= 0) return 'limit';
      const part = frame.length > room ? frame.subarray(0, room) : frame;
      await stream.sendAudio(part);
      progress.sentSamples += part.length;
      if (part.length < frame.length) return 'limit';
    }
    progress.ended = true;
    return 'done';
  } catch (error) {
    if (options.signal?.aborted || !stop.signal.aborted) throw error;
    return 'stopped';
  } finally {
    clearTimeout(timer);
  }
}

/** A refusal before any request says so, once. */
function nothingSent(error: unknown): unknown {
  if (!ValidationError.isInstance(error) || /nothing was sent\.$/i.test(error.message)) return error;
  return new ValidationError(`${error.message} Nothing was sent.`, error.issues);
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
