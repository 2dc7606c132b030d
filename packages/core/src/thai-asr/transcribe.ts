/**
 * The task verb of the recognition client: check the input locally (options, session fields, the file
 * opened once — a regular non-empty file, its header read and its duration within the limit), read the
 * config (the key's daily audio left), open a session, connect, and stream frames at real-time pace (or
 * faster) as they are decoded from the file — never the whole file in memory — then end the utterance and
 * return the `final` text and segments, or what there is of them when the deadline comes first.
 *
 * With a deadline, audio stops a little before it (`finalReserveMs`) and the utterance is ended, so that
 * the `final` for the audio already sent can still arrive in time; the result is then incomplete but final
 * for what it covers.
 */
import { type AudioFile, openAudioFile } from '../audio/open-audio-file.js';
import { THAI_ASR_DEFAULTS, ThaiAsrSessionRequest } from '../contracts/thai-asr.js';
import { StreamingError, TimeoutError, ValidationError } from '../errors/polymodal-error.js';
import type { FileAccess } from '../files/create-file-access.js';
import { startCall } from '../http/call-options.js';
import type { HttpClient } from '../http/http-client.js';
import {
  checkAudioLength,
  checkDailyAllowance,
  MAX_TRANSCRIBE_AUDIO_SECONDS,
  remainingDailySeconds,
} from './check-audio-length.js';
import { type AudioSource, type StreamProgress, streamAudio } from './stream-audio.js';
import {
  connectThaiAsrSession,
  createThaiAsrSession,
  readThaiAsrConfig,
  sessionValidationError,
} from './thai-asr-requests.js';
import type { ThaiAsrCallOptions, TranscribeOptions, TranscribeResult } from './thai-asr-types.js';
import { createTranscriptCollector } from './transcript-collector.js';

/** Without a deadline, `final` is awaited this long after `end`. */
const FINAL_TIMEOUT_WITHOUT_DEADLINE_MS = 30_000;
/** With a deadline, audio stops this long before it so that the `final` can still come (see finalReserveMs). */
const DEFAULT_FINAL_RESERVE_MS = 3_000;

export interface TranscribeDeps {
  http: HttpClient;
  apiKey: string;
  files: FileAccess | undefined;
}

/** A transcription checked and planned: what streams, at which rate, and how much of it at most. */
interface TranscriptionPlan {
  sessionFields: ThaiAsrSessionRequest;
  speed: number;
  sampleRate: number;
  chunkMs: number;
  maxSamples: number;
  /** Samples the input holds, when known (exactly for WAV and samples, estimated from ffprobe). */
  expectedSamples: number | undefined;
  source: AudioSource;
}

export async function transcribe(
  deps: TranscribeDeps,
  transcribeOptions: TranscribeOptions,
): Promise<TranscribeResult> {
  // `timeout` bounds the whole call: from here on it is the `deadline`.
  const request = startCall(transcribeOptions);
  const checked = checkTranscribeOptions(request);
  // Everything about the input is checked before the first request: a bad or too long file costs nothing.
  const audio = request.file === undefined ? undefined : await openBeforeDeadline(deps.files, request);
  try {
    const plan = await planTranscription(deps.http, { request, checked, audio });
    return await streamTranscription(deps, request, plan);
  } finally {
    await audio?.close();
  }
}

/** The options that are checked before anything else; each refusal names its field. */
function checkTranscribeOptions(request: TranscribeOptions) {
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
  if (!sessionFields.success) throw sessionValidationError(sessionFields.error, request.session ?? {});
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
  return { speed, sessionFields: sessionFields.data, maxAudioSeconds };
}

/** The per-call options of the config and session requests. */
function requestCallOptions(request: TranscribeOptions): ThaiAsrCallOptions {
  return {
    ...(request.signal ? { signal: request.signal } : {}),
    deadline: request.deadline,
    maxRetries: request.maxRetries,
  };
}

/**
 * Checks the input's length (locally, then against the key's daily audio left in the config) and fixes
 * the session's rate, chunk size and the most that may stream.
 */
async function planTranscription(
  http: HttpClient,
  input: {
    request: TranscribeOptions;
    checked: ReturnType<typeof checkTranscribeOptions>;
    audio: AudioFile | undefined;
  },
): Promise<TranscriptionPlan> {
  const { request, checked, audio } = input;
  const { sessionFields, maxAudioSeconds } = checked;
  const name = audio?.path ?? 'The audio';
  const samples = request.samples as Int16Array;
  /** Seconds of input, before the session's rate is known (samples: at the requested or default rate). */
  const inputSeconds = (rate: number) => (audio ? audio.durationSeconds : samples.length / rate);
  try {
    checkAudioLength({
      name,
      seconds: inputSeconds(sessionFields.sample_rate ?? THAI_ASR_DEFAULTS.sample_rate),
      maxSeconds: maxAudioSeconds,
      ...(audio ? { size: audio.size } : {}),
      ...(audio?.durationUnknownBecause ? { unknownBecause: audio.durationUnknownBecause } : {}),
    });
  } catch (error) {
    throw nothingSent(error);
  }

  const platformConfig = await readThaiAsrConfig(http, requestCallOptions(request));
  const defaults = platformConfig.defaults;
  const sampleRate = sessionFields.sample_rate ?? defaults?.sample_rate ?? THAI_ASR_DEFAULTS.sample_rate;
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
    : samples.length;
  return {
    sessionFields,
    speed: checked.speed,
    sampleRate,
    chunkMs,
    maxSamples,
    expectedSamples,
    source: audio ? (signal: AbortSignal) => audio.decode({ sampleRate, signal }) : samples,
  };
}

/** Opens and checks the file, giving up at the deadline (nothing has been sent yet). */
async function openBeforeDeadline(
  files: FileAccess | undefined,
  request: TranscribeOptions,
): Promise<AudioFile> {
  const { deadline } = request;
  const expiry = new AbortController();
  const timer =
    deadline === undefined ? undefined : setTimeout(() => expiry.abort(), Math.max(0, deadline - Date.now()));
  try {
    return await openAudioFile(request.file as string, {
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

/** Session, connection, `start`, paced audio, `end` and `final`; early at the deadline or on a stall. */
async function streamTranscription(
  deps: TranscribeDeps,
  request: TranscribeOptions,
  plan: TranscriptionPlan,
): Promise<TranscribeResult> {
  const { sampleRate } = plan;
  const { deadline } = request;
  const callOptions = requestCallOptions(request);
  // Taken from the time the call still has once the input is checked, so a short call keeps time to stream.
  const reserveMs =
    deadline === undefined
      ? 0
      : Math.min(
          request.finalReserveMs ?? DEFAULT_FINAL_RESERVE_MS,
          Math.max(0, (deadline - Date.now()) / 4),
        );
  const session = await createThaiAsrSession(
    deps.http,
    { ...plan.sessionFields, sample_rate: sampleRate },
    callOptions,
  );
  const stream = await connectThaiAsrSession(deps, session, {
    ...callOptions,
    ...(request.readyTimeoutMs === undefined ? {} : { readyTimeoutMs: request.readyTimeoutMs }),
    ...(request.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: request.idleTimeoutMs }),
    ...(request.audioEncoding ? { audioEncoding: request.audioEncoding } : {}),
  });
  const collector = createTranscriptCollector(request);
  const progress: StreamProgress = { sentSamples: 0, ended: false };
  let incompleteReason: TranscribeResult['incompleteReason'];
  try {
    stream.onEvent((event) => collector.onEvent(event));
    await stream.start({ ...plan.sessionFields, sample_rate: sampleRate });
    const outcome = await streamAudio(stream, plan.source, progress, {
      sampleRate,
      chunkMs: plan.chunkMs,
      speed: plan.speed,
      maxSamples: plan.maxSamples,
      ...(deadline === undefined ? {} : { stopAt: deadline - reserveMs }),
      ...(request.signal ? { signal: request.signal } : {}),
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
  return collector.result({
    sessionId: session.session_id,
    sampleRate,
    progress,
    expectedSamples: plan.expectedSamples,
    incompleteReason,
    skippedEvents,
  });
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
