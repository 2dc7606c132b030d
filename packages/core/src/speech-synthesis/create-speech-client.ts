/**
 * Client of the speech synthesis service (`/api/tts/v1`), following the spec's client rules:
 *
 * - A POST is retried automatically only after an explicit 429 (no task was admitted); after a timeout or
 *   a reset it is not, since the task may exist (the job ledger then refuses an identical request until
 *   the caller allows a resubmission).
 * - A 429 on a status read keeps the same taskId and reads the same URL again.
 * - Status is never read faster than the last Retry-After (start response, PENDING responses, 429), with
 *   up to 10 % random jitter, and the pause grows by a quarter per read up to one read per 15 s.
 * - A per-key governor keeps unfinished tasks within the key's `concurrentSessions` (configured, or
 *   learned from a 429's `concurrentLimit`; 4 until known), so a batch does not provoke 429s; queued work
 *   hears its position.
 *
 * `synthesizeText` takes text of any length: it splits it at sentence boundaries into parts of at most
 * 200 characters, synthesises them under the governor and joins the WAVs in order.
 */
import path from 'node:path';
import { concatWav } from '../audio/concat-wav.js';
import {
  CustomVoiceCreated,
  isTruthyConsent,
  SpeechBusy,
  SpeechRequest,
  SpeechStart,
  type SpeechTask,
  SpeechTask as SpeechTaskSchema,
  speechRequestIssues,
  TTS_API_PATH,
} from '../contracts/speech-synthesis.js';
import { jobErrorText } from '../contracts/video.js';
import type { MediaDownloader } from '../download/index.js';
import { ApiError, JobFailedError, PollingTimeoutError, ValidationError } from '../errors/index.js';
import type { FileAccess } from '../files/index.js';
import { type HttpClient, parseRetryAfter } from '../http/index.js';
import { createJobEngine, type JobEngine, statusUnlessGone } from '../jobs/index.js';
import { fingerprint, type LedgerEntry } from '../ledger/index.js';
import { openLocalFile } from '../media/read-media-as-data-url.js';
import { isWav } from '../media/sniff-media-type.js';
import { assertPublicHttpUrl } from '../net/assert-public-http-url.js';
import { createMultipartFieldsBody, createMultipartFileBody } from '../upload/index.js';
import { sleep as defaultSleep, type SleepFunction } from '../util/sleep.js';
import { checkJobId } from '../video/video-job-client.js';
import { ConcurrencyGovernor, type Slot } from './concurrency-governor.js';
import { splitSpeechText } from './split-speech-text.js';

export const SPEECH_SYNTHESIS_SERVICE = 'speech-synthesis';
export const CUSTOM_VOICE_SERVICE = 'custom-voice';
export const TTS_MIN_POLL_MS = 1_000;
export const TTS_MAX_POLL_MS = 15_000;
export const TTS_WAIT_TIMEOUT_MS = 10 * 60 * 1000;
/** 429 answers to one POST waited out before giving up. */
const MAX_BUSY_ROUNDS = 30;
/** A slot of a task nobody looks at any more is freed after this long. */
const SLOT_EXPIRY_MS = 15 * 60 * 1000;
const MAX_CONSECUTIVE_ERRORS = 5;

export interface SpeechClientOptions {
  http: HttpClient;
  /** The job engine (claims, ledger); default one without a ledger. */
  engine?: JobEngine;
  files?: FileAccess;
  /** Needed by synthesizeText (to fetch the parts). */
  downloader?: MediaDownloader;
  /** The key's concurrentSessions, when known (otherwise learned from a 429). */
  concurrentSessions?: number;
  /** Tasks in flight while the limit is unknown. Default 4. */
  initialConcurrency?: number;
  sleep?: SleepFunction;
  random?: () => number;
}

export interface SpeechSubmitOptions {
  signal?: AbortSignal;
  /** Hears the 1-based queue position while the key's limit is reached. */
  onQueued?: (position: number) => void;
  /** Send again although an identical earlier request was cut off and may already have created a task. */
  allowResubmit?: boolean;
  /** Start a new task even if this installation already synthesised the same request. */
  forceNew?: boolean;
}

export interface SubmittedSpeech {
  taskId: string;
  /** Pause the service asked for before the first status read. */
  retryAfterMs: number | undefined;
  resumed: boolean;
}

export interface SpeechWaitOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** First pause (default: the start response's Retry-After, at least 1 s). */
  initialDelayMs?: number;
  onProgress?: (task: SpeechTask) => void;
}

export interface SpeechTaskRead {
  task: SpeechTask;
  retryAfterMs: number | undefined;
}

export interface TextSynthesisProgress {
  parts: number;
  finished: number;
  /** Parts waiting for a free slot of the key. */
  queued: number;
}

export interface TextSynthesisPart {
  text: string;
  taskId: string;
  durationSeconds: number | undefined;
  resumed: boolean;
}

export interface TextSynthesis {
  /** One WAV file of all parts, in order. */
  wav: Buffer;
  parts: TextSynthesisPart[];
  durationSeconds: number | undefined;
}

export interface RegisterVoiceOptions {
  /** The voice owner authorised cloning; must be true. */
  consent: boolean;
  /** A short WAV of the voice (local path), or give audioUrl. */
  audioFile?: string;
  /** A public https URL of the recording. */
  audioUrl?: string;
  name?: string;
  model?: 'model_b' | 'model_c' | 'model_d';
  language?: string;
  transcript?: string;
  signal?: AbortSignal;
}

export interface RegisteredVoice extends CustomVoiceCreated {
  /** True when this installation had registered the same recording before and nothing was sent. */
  resumed: boolean;
}

export interface SpeechStats {
  /** POST requests sent. */
  posts: number;
  /** 429 answers received (to POSTs and status reads) and waited out. */
  busyAnswers: number;
  /** Largest number of this client's tasks unfinished at once. */
  peakActive: number;
}

export interface SpeechClient {
  /** The request with every rule of the service checked; throws ValidationError. */
  validate(request: SpeechRequest): SpeechRequest;
  submit(request: SpeechRequest, options?: SpeechSubmitOptions): Promise<SubmittedSpeech>;
  get(taskId: string, options?: { signal?: AbortSignal }): Promise<SpeechTaskRead>;
  wait(taskId: string, options?: SpeechWaitOptions): Promise<SpeechTask>;
  /** submit + wait; a FAILURE → JobFailedError. */
  synthesize(
    request: SpeechRequest,
    options?: SpeechSubmitOptions & Omit<SpeechWaitOptions, 'signal' | 'initialDelayMs'>,
  ): Promise<{ task: SpeechTask; resumed: boolean }>;
  synthesizeText(
    request: Omit<SpeechRequest, 'text'> & { text: string },
    options?: Omit<SpeechSubmitOptions, 'onQueued'> & {
      onProgress?: (progress: TextSynthesisProgress) => void;
    },
  ): Promise<TextSynthesis>;
  registerVoice(options: RegisterVoiceOptions): Promise<RegisteredVoice>;
  /** Voices this installation registered, newest first (from the job ledger). */
  listVoices(): Promise<LedgerEntry[]>;
  readonly governor: ConcurrencyGovernor;
  stats(): SpeechStats;
}

function statusPathOf(taskId: string): string {
  return `${TTS_API_PATH}/audio/speech/${encodeURIComponent(checkJobId(taskId, 'taskId'))}`;
}

export function createSpeechClient(options: SpeechClientOptions): SpeechClient {
  const { http } = options;
  const engine = options.engine ?? createJobEngine();
  const ledger = engine.ledger;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const governor = new ConcurrencyGovernor({
    ...(options.concurrentSessions === undefined ? {} : { limit: options.concurrentSessions }),
    ...(options.initialConcurrency === undefined ? {} : { initialLimit: options.initialConcurrency }),
  });
  /** Slots held by unfinished tasks, released when a read sees the task ready. */
  const held = new Map<string, { slot: Slot; timer: NodeJS.Timeout }>();
  const stats: SpeechStats = { posts: 0, busyAnswers: 0, peakActive: 0 };

  function hold(taskId: string, slot: Slot): void {
    const timer = setTimeout(() => release(taskId), SLOT_EXPIRY_MS);
    timer.unref();
    held.get(taskId)?.slot.release();
    held.set(taskId, { slot, timer });
    stats.peakActive = Math.max(stats.peakActive, governor.active);
  }

  function release(taskId: string): void {
    const entry = held.get(taskId);
    if (!entry) return;
    clearTimeout(entry.timer);
    held.delete(taskId);
    entry.slot.release();
  }

  const jitter = (ms: number) => ms * (1 + random() * 0.1);

  /** Learns from a 429 and returns how long to wait before trying again. */
  function busyPause(error: ApiError): number {
    stats.busyAnswers += 1;
    const body = SpeechBusy.safeParse(error.body);
    if (body.success && body.data.concurrentLimit !== undefined) governor.learn(body.data.concurrentLimit);
    const fromBody =
      body.success && body.data.retryAfterSeconds !== undefined
        ? body.data.retryAfterSeconds * 1000
        : undefined;
    return jitter(Math.max(error.retryAfterMs ?? fromBody ?? TTS_MIN_POLL_MS, TTS_MIN_POLL_MS));
  }

  function validate(request: SpeechRequest): SpeechRequest {
    const parsed = SpeechRequest.safeParse(request);
    const issues = parsed.success
      ? speechRequestIssues(parsed.data)
      : parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
    if (!parsed.success || issues.length > 0) {
      throw new ValidationError(
        `Invalid speech request: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}. Nothing was sent.`,
        issues,
      );
    }
    if (parsed.data.clone_audio?.startsWith('https://')) {
      assertPublicHttpUrl(parsed.data.clone_audio, { field: 'clone_audio', httpsOnly: true });
    }
    return parsed.data;
  }

  async function post(body: SpeechRequest, signal: AbortSignal | undefined) {
    for (let round = 0; ; round++) {
      try {
        stats.posts += 1;
        const response = await http.request({
          method: 'POST',
          path: `${TTS_API_PATH}/audio/speech`,
          json: body,
          schema: SpeechStart,
          idempotent: false,
          retryRateLimited: false,
          ...(signal ? { signal } : {}),
        });
        return {
          taskId: response.data.taskId,
          retryAfterMs: parseRetryAfter(response.headers['retry-after']),
        };
      } catch (error) {
        // A 429 means no task was admitted: waiting and sending again cannot create a duplicate.
        if (!(ApiError.isInstance(error) && error.status === 429) || round >= MAX_BUSY_ROUNDS) throw error;
        await sleep(busyPause(error), signal);
      }
    }
  }

  async function submit(input: SpeechRequest, extra: SpeechSubmitOptions = {}): Promise<SubmittedSpeech> {
    const body = validate(input);
    const slot = await governor.acquire({
      ...(extra.signal ? { signal: extra.signal } : {}),
      ...(extra.onQueued ? { onPosition: extra.onQueued } : {}),
    });
    let retryAfterMs: number | undefined;
    try {
      const started = await engine.start({
        service: SPEECH_SYNTHESIS_SERVICE,
        fingerprint: fingerprint({ service: SPEECH_SYNTHESIS_SERVICE, body }),
        title: body.text.slice(0, 80),
        request: { ...body },
        signal: extra.signal,
        reusable: (status) => status !== 'FAILURE',
        current: (id, { signal }) => statusUnlessGone(async () => (await readTask(id, signal)).task.state),
        forceNew: extra.forceNew,
        allowResubmit: extra.allowResubmit,
        resubmitOption: 'allowResubmit',
        submit: async ({ signal }) => {
          const posted = await post(body, signal);
          retryAfterMs = posted.retryAfterMs;
          return { id: posted.taskId, status: 'PENDING' };
        },
      });
      if (started.resumed && (started.status === 'SUCCESS' || started.status === 'FAILURE')) {
        slot.release();
      } else {
        hold(started.id, slot);
      }
      return { taskId: started.id, retryAfterMs, resumed: started.resumed };
    } catch (error) {
      slot.release();
      throw error;
    }
  }

  async function readTask(taskId: string, signal: AbortSignal | undefined): Promise<SpeechTaskRead> {
    const response = await http.request({
      method: 'GET',
      path: statusPathOf(taskId),
      schema: SpeechTaskSchema,
      idempotent: true,
      retryRateLimited: false,
      ...(signal ? { signal } : {}),
    });
    if (response.data.ready) release(taskId);
    const retryAfterMs = parseRetryAfter(response.headers['retry-after']);
    await engine.noteRead(SPEECH_SYNTHESIS_SERVICE, taskId, {
      status: response.data.state,
      body: response.data,
      retryAfterMs,
    });
    return { task: response.data, retryAfterMs };
  }

  async function wait(taskId: string, extra: SpeechWaitOptions = {}): Promise<SpeechTask> {
    const deadline = Date.now() + (extra.timeoutMs ?? TTS_WAIT_TIMEOUT_MS);
    let pause = Math.max(extra.initialDelayMs ?? TTS_MIN_POLL_MS, TTS_MIN_POLL_MS);
    let floor = pause;
    let errors = 0;
    let lastState: string | undefined;
    // The first read waits for the start response's Retry-After.
    await sleep(jitter(floor), extra.signal);
    for (;;) {
      try {
        const { task, retryAfterMs } = await readTask(taskId, extra.signal);
        errors = 0;
        lastState = task.state;
        extra.onProgress?.(task);
        if (task.ready) {
          if (task.successful !== true || !task.result?.url) {
            throw new JobFailedError({
              service: SPEECH_SYNTHESIS_SERVICE,
              jobId: taskId,
              status: task.state,
              errorMessage:
                jobErrorText(task.error) ?? (task.successful ? 'no audio URL in the result' : null),
            });
          }
          return task;
        }
        floor = retryAfterMs ?? 0;
      } catch (error) {
        if (extra.signal?.aborted) throw extra.signal.reason;
        if (ApiError.isInstance(error) && error.status === 429) {
          // Not a failure: the same task is read again after the pause the service asked for.
          floor = busyPause(error);
        } else if (
          !JobFailedError.isInstance(error) &&
          (ApiError.isInstance(error) ? error.retryable : !ValidationError.isInstance(error)) &&
          ++errors <= MAX_CONSECUTIVE_ERRORS
        ) {
          floor = 0;
        } else {
          throw error;
        }
      }
      pause = Math.min(pause * 1.25, TTS_MAX_POLL_MS);
      const delay = jitter(Math.max(pause, floor));
      if (Date.now() + delay > deadline) {
        throw new PollingTimeoutError({
          service: SPEECH_SYNTHESIS_SERVICE,
          jobId: taskId,
          ...(lastState === undefined ? {} : { lastStatus: lastState }),
          waitedMs: (extra.timeoutMs ?? TTS_WAIT_TIMEOUT_MS) - (deadline - Date.now()),
        });
      }
      await sleep(delay, extra.signal);
    }
  }

  async function synthesize(
    request: SpeechRequest,
    extra: SpeechSubmitOptions & Omit<SpeechWaitOptions, 'signal' | 'initialDelayMs'> = {},
  ): Promise<{ task: SpeechTask; resumed: boolean }> {
    const submitted = await submit(request, extra);
    const task = await wait(submitted.taskId, {
      ...(extra.signal ? { signal: extra.signal } : {}),
      ...(extra.timeoutMs === undefined ? {} : { timeoutMs: extra.timeoutMs }),
      ...(extra.onProgress ? { onProgress: extra.onProgress } : {}),
      ...(submitted.retryAfterMs === undefined ? {} : { initialDelayMs: submitted.retryAfterMs }),
    });
    return { task, resumed: submitted.resumed };
  }

  async function synthesizeText(
    request: Omit<SpeechRequest, 'text'> & { text: string },
    extra: Omit<SpeechSubmitOptions, 'onQueued'> & {
      onProgress?: (progress: TextSynthesisProgress) => void;
    } = {},
  ): Promise<TextSynthesis> {
    const downloader = options.downloader;
    if (!downloader)
      throw new TypeError('synthesizeText needs a media downloader (createPolymodal provides one).');
    const texts = splitSpeechText(request.text, request.language ? { language: request.language } : {});
    if (texts.length === 0) {
      throw new ValidationError('text is empty. Nothing was sent.', [{ path: 'text', message: 'empty' }]);
    }
    // Every part is checked before the first one is sent.
    const bodies = texts.map((text) => validate({ ...request, text }));
    const progress: TextSynthesisProgress = { parts: texts.length, finished: 0, queued: 0 };
    const queuedParts = new Set<number>();
    const report = () => extra.onProgress?.({ ...progress, queued: queuedParts.size });
    report();
    const partOptions: SpeechSubmitOptions = {
      ...(extra.signal ? { signal: extra.signal } : {}),
      ...(extra.allowResubmit ? { allowResubmit: true } : {}),
      ...(extra.forceNew ? { forceNew: true } : {}),
    };
    const settled = await Promise.allSettled(
      bodies.map(async (body, index) => {
        const { task, resumed } = await synthesize(body, {
          ...partOptions,
          onQueued: () => {
            queuedParts.add(index);
            report();
          },
          onProgress: () => {
            if (queuedParts.delete(index)) report();
          },
        });
        const url = task.result?.url as string;
        let fetched: Awaited<ReturnType<MediaDownloader['fetchBytes']>>;
        try {
          fetched = await downloader.fetchBytes({
            url,
            kind: 'audio',
            ...(extra.signal ? { signal: extra.signal } : {}),
          });
        } catch (error) {
          // A result recorded long ago may have expired; synthesise that part again.
          if (!(resumed && ApiError.isInstance(error) && (error.status === 404 || error.status === 410)))
            throw error;
          const again = await synthesize(body, { ...partOptions, forceNew: true });
          fetched = await downloader.fetchBytes({
            url: again.task.result?.url as string,
            kind: 'audio',
            ...(extra.signal ? { signal: extra.signal } : {}),
          });
        }
        if (!isWav(fetched.bytes)) {
          throw new ValidationError(
            `Part ${index + 1} of the speech is not a WAV file; cannot join the parts.`,
          );
        }
        progress.finished += 1;
        queuedParts.delete(index);
        report();
        return {
          bytes: fetched.bytes,
          part: {
            text: body.text,
            taskId: task.taskId,
            durationSeconds: task.result?.metadata?.duration,
            resumed,
          } satisfies TextSynthesisPart,
        };
      }),
    );
    // Parts already admitted are finished (and recorded) before a failure is reported, so a rerun resumes
    // them instead of paying again.
    const failure = settled.find((item) => item.status === 'rejected');
    if (failure) throw (failure as PromiseRejectedResult).reason;
    const results = settled.map(
      (item) => (item as PromiseFulfilledResult<{ bytes: Buffer; part: TextSynthesisPart }>).value,
    );
    const durations = results.map((item) => item.part.durationSeconds);
    return {
      wav: concatWav(results.map((item) => item.bytes)),
      parts: results.map((item) => item.part),
      durationSeconds: durations.every((value) => typeof value === 'number')
        ? (durations as number[]).reduce((sum, value) => sum + value, 0)
        : undefined,
    };
  }

  async function registerVoice(input: RegisterVoiceOptions): Promise<RegisteredVoice> {
    if (input.consent !== true || !isTruthyConsent(input.consent)) {
      throw new ValidationError(
        'consent must be true: confirm that the owner of the voice authorised cloning it. Nothing was sent.',
        [{ path: 'consent', message: 'required' }],
      );
    }
    if ((input.audioFile === undefined) === (input.audioUrl === undefined)) {
      throw new ValidationError('Give either audioFile or audioUrl (exactly one). Nothing was sent.', [
        { path: 'audioFile', message: 'exactly one of audioFile and audioUrl' },
      ]);
    }
    const fields: Record<string, string> = { consent: 'true' };
    if (input.name !== undefined) fields.name = input.name;
    if (input.model !== undefined) fields.model = input.model;
    if (input.language !== undefined) fields.language = input.language;
    if (input.transcript !== undefined) fields.transcript = input.transcript;
    let identity: Record<string, unknown>;
    let build: () => ReturnType<typeof createMultipartFieldsBody>;
    if (input.audioUrl !== undefined) {
      assertPublicHttpUrl(input.audioUrl, { field: 'audioUrl', httpsOnly: true });
      fields.audio_url = input.audioUrl;
      identity = { url: input.audioUrl };
      build = () => createMultipartFieldsBody(fields);
    } else {
      const opened = await openLocalFile(input.audioFile as string, options.files, 'audioFile');
      const realPath = opened.realPath;
      const size = opened.size;
      const head = Buffer.alloc(12);
      let mtimeMs: number;
      try {
        mtimeMs = (await opened.handle.stat()).mtimeMs;
        await opened.handle.read(head, 0, 12, 0);
      } finally {
        await opened.handle.close();
      }
      if (size === 0 || !isWav(head)) {
        throw new ValidationError(
          `audioFile: ${realPath} is not a WAV recording (checked by content). Nothing was sent.`,
          [{ path: 'audioFile', message: 'not a WAV file' }],
        );
      }
      identity = { file: realPath, size, mtimeMs };
      build = () =>
        createMultipartFileBody({
          field: 'audio_file',
          path: realPath,
          filename: path.basename(realPath),
          contentType: 'audio/wav',
          fields,
        });
    }
    const voiceFingerprint = fingerprint({ service: CUSTOM_VOICE_SERVICE, identity, fields });
    const known = await ledger?.findByFingerprint(CUSTOM_VOICE_SERVICE, voiceFingerprint);
    if (known?.id && known.request?.voice) {
      return { ...(known.request.voice as CustomVoiceCreated), resumed: true };
    }
    const response = await http.request({
      method: 'POST',
      path: `${TTS_API_PATH}/custom-voices`,
      multipart: build,
      schema: CustomVoiceCreated,
      idempotent: false,
      ...(input.signal ? { signal: input.signal } : {}),
    });
    const recorded = {
      id: response.data.voice.id,
      lastStatus: 'REGISTERED',
      title: response.data.voice.name ?? input.name ?? null,
      request: {
        ...(input.audioFile === undefined ? { url: input.audioUrl } : { file: identity.file }),
        voice: response.data,
      },
    };
    try {
      const inserted = await ledger?.insert({
        service: CUSTOM_VOICE_SERVICE,
        fingerprint: voiceFingerprint,
        ...recorded,
      });
      if (inserted && !inserted.inserted)
        await ledger?.update(CUSTOM_VOICE_SERVICE, voiceFingerprint, recorded);
    } catch (error) {
      // The voice exists on the platform; failing to note it here only costs a second registration later.
      engine.warn(
        `voice ${response.data.voice.id} could not be recorded in the job ledger: ${String(error)}`,
      );
    }
    return { ...response.data, resumed: false };
  }

  return {
    validate,
    submit,
    get: (taskId, extra = {}) => readTask(taskId, extra.signal),
    wait,
    synthesize,
    synthesizeText,
    registerVoice,
    listVoices: async () => (ledger ? ledger.list({ service: CUSTOM_VOICE_SERVICE }) : []),
    governor,
    stats: () => ({ ...stats }),
  };
}
