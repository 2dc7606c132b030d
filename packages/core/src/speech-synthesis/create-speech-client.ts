/**
 * Client of the speech synthesis service (`/api/tts/v1`), following the spec's client rules:
 *
 * - A POST is retried automatically only after an explicit 429 (no task was admitted); after a timeout or
 *   a reset it is not, since the task may exist (the job ledger then refuses an identical request until
 *   the caller allows a resubmission). A caller's abort ends its waiting (for a slot, out a 429's pause),
 *   never a POST already sent: that one completes and is recorded, so a repeat resumes its task.
 * - Status reads go through the job engine's one polling loop: the first read after the start response's
 *   Retry-After (at least 1 s), then a pause that grows by a quarter per read up to one read per 15 s, with
 *   up to 10 % jitter, and never sooner than the last Retry-After (start, PENDING, 429) — remembered in this
 *   process and in the ledger, so a resumed task after a restart waits for it too.
 * - A 429 on a status read is not a failure: the same taskId is read again after its Retry-After.
 * - A per-key governor keeps unfinished tasks within the key's `concurrentSessions` (configured, or
 *   learned from a 429's `concurrentLimit`; 4 until known), so a batch does not provoke 429s; queued work
 *   hears its position. A request refused with a 429 waits for a free slot of the learned limit, not only
 *   for its Retry-After.
 *
 * `synthesizeText` takes text of any length: it splits it at sentence boundaries into parts of at most
 * 200 characters, synthesises them under the governor and joins the WAVs in order.
 */
import path from 'node:path';
import { concatWav } from '../audio/concat-wav.js';
import { readAtOf, readWavHeader } from '../audio/read-wav-header.js';
import {
  CUSTOM_VOICE_SERVICE,
  SPEECH_SYNTHESIS_SERVICE,
  serviceOf,
  TTS_API_PATH,
} from '../constants/service-table.js';
import { jobErrorText } from '../constants/video-constants.js';
import {
  CustomVoiceCreated,
  isTruthyConsent,
  SpeechBusy,
  SpeechRequest,
  SpeechStart,
  type SpeechTask,
  SpeechTask as SpeechTaskSchema,
  speechRequestIssues,
} from '../contracts/speech-synthesis.js';
import type { MediaDownloader } from '../download/download-media.js';
import { ApiError } from '../errors/api-error.js';
import { describeIssues, listIssues } from '../errors/describe-issues.js';
import { ConnectionError, ValidationError } from '../errors/polymodal-error.js';
import type { FileAccess } from '../files/create-file-access.js';
import {
  type CallOptions,
  requestOptionsOf,
  startCall,
  waitTimeoutMs,
  withinDeadline,
} from '../http/call-options.js';
import type { HttpClient } from '../http/http-client.js';
import { parseRetryAfter } from '../http/parse-retry-after.js';
import { createJobEngine, type JobEngine } from '../jobs/create-job-engine.js';
import { defineJobResource, type JobPollOptions, type JobWaitOptions } from '../jobs/job-resource.js';
import type { PollOutcome } from '../jobs/poll-job.js';
import type { LedgerEntry } from '../ledger/create-job-ledger.js';
import { fingerprint } from '../ledger/fingerprint.js';
import { openLocalFile } from '../media/read-media-as-data-url.js';
import { isWav } from '../media/sniff-media-type.js';
import { assertPublicHttpUrl } from '../net/assert-public-http-url.js';
import { createMultipartFieldsBody, createMultipartFileBody } from '../upload/create-multipart-file-body.js';
import { sleep as defaultSleep, type SleepFunction } from '../util/sleep.js';
import { checkJobId } from '../video/video-job-client.js';
import { SPEECH_TASK, type TextSynthesisProgress } from '../views/speech-job.js';
import { ConcurrencyGovernor, type Slot, type SpeechGovernor } from './concurrency-governor.js';
import { splitSpeechText } from './split-speech-text.js';
export const TTS_MIN_POLL_MS = serviceOf(SPEECH_SYNTHESIS_SERVICE).pollIntervalMs;
export const TTS_MAX_POLL_MS = 15_000;
export const TTS_WAIT_TIMEOUT_MS = 10 * 60 * 1000;
/** The spec's polling rule as the engine's cadence: a quarter longer per read, at most 15 s, 10 % jitter. */
const TTS_POLL_GROWTH = 1.25;
const TTS_POLL_JITTER = 0.1;
/** 429 answers to one POST waited out before giving up. */
const MAX_BUSY_ROUNDS = 30;
/** A slot of a task nobody looks at any more is freed after this long. */
const SLOT_EXPIRY_MS = 15 * 60 * 1000;

export interface SpeechClientOptions {
  http: HttpClient;
  /** The job engine (claims, ledger, the polling loop); default one without a ledger. */
  engine?: JobEngine;
  files?: FileAccess;
  /** Needed by synthesizeText (to fetch the parts). */
  downloader?: MediaDownloader;
  /** The key's concurrentSessions, when known (otherwise learned from a 429). */
  concurrentSessions?: number;
  /** Tasks in flight while the limit is unknown. Default 4. */
  initialConcurrency?: number;
  /**
   * The governor to take slots from, e.g. one shared by server replicas on one key; then
   * `concurrentSessions` and `initialConcurrency` are the governor's to apply. Default: one of this client.
   */
  governor?: SpeechGovernor;
  /** Used for 429 pauses, and by the default engine. */
  sleep?: SleepFunction;
  random?: () => number;
  /** The clock of deadlines (and of the default engine). */
  now?: () => number;
}

/**
 * `timeout` bounds the call: the wait for a free slot and the pauses after 429s; a POST in flight then goes on
 * and is recorded (the same call resumes it). `maxRetries` is how many times a POST declined with 429 is sent
 * again (default 5).
 */
export interface SpeechSubmitOptions extends CallOptions {
  /**
   * Ends the caller's waiting — for a free slot, or out a 429's pause — with its reason. A POST already sent
   * is not cut: it completes and its task is recorded (a repeat resumes it).
   */
  signal?: AbortSignal;
  /** Hears the 1-based queue position while the key's limit is reached. */
  onQueued?: (position: number) => void;
  /** Hears that the request got a slot of the key's limit after waiting for one (it goes out now). */
  onDequeued?: () => void;
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

/** A wait's options, without the first pause: `synthesize` knows it from the start response. */
type SpeechWaitOptions = Omit<JobWaitOptions<SpeechTask>, 'initialDelayMs'>;

export interface SpeechTaskRead {
  task: SpeechTask;
  retryAfterMs: number | undefined;
}

export interface TextSynthesisPart {
  text: string;
  taskId: string;
  durationSeconds: number | undefined;
  resumed: boolean;
}

/** A part `synthesizeText` sends for a text, and the job-ledger entry that records its task. */
export interface TextSynthesisPartPlan {
  text: string;
  /** Fingerprint of the part's `speech-synthesis` ledger entry. */
  fingerprint: string;
}

export interface TextSynthesis {
  /** One WAV file of all parts, in order. */
  wav: Buffer;
  parts: TextSynthesisPart[];
  durationSeconds: number | undefined;
}

/**
 * `timeout` bounds the whole synthesis: no part is sent after it and the call answers then; parts already
 * sent finish and are recorded, so the same text again resumes them. `maxRetries` applies to each part as in
 * `submit`.
 */
export interface TextSynthesisOptions extends CallOptions {
  /**
   * Stops the synthesis: parts not yet sent are never sent, and the call rejects at once with the reason.
   * Parts already sent finish on their own and are recorded, so the same text again resumes them.
   */
  signal?: AbortSignal;
  onProgress?: (progress: TextSynthesisProgress) => void;
  allowResubmit?: boolean;
  forceNew?: boolean;
}

export interface RegisterVoiceOptions extends CallOptions {
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
  get(taskId: string, options?: CallOptions): Promise<SpeechTaskRead>;
  /** Waits until `deadline` at most: `done: false` with the newest task then, never an error for time. */
  poll(taskId: string, options: JobPollOptions<SpeechTask>): Promise<PollOutcome<SpeechTask>>;
  /** Polls until the task is ready; FAILURE → JobFailedError; the time limit → PollingTimeoutError. */
  wait(taskId: string, options?: JobWaitOptions<SpeechTask>): Promise<SpeechTask>;
  /** submit + wait; a FAILURE → JobFailedError. */
  synthesize(
    request: SpeechRequest,
    options?: SpeechSubmitOptions & SpeechWaitOptions,
  ): Promise<{ task: SpeechTask; resumed: boolean }>;
  synthesizeText(
    request: Omit<SpeechRequest, 'text'> & { text: string },
    options?: TextSynthesisOptions,
  ): Promise<TextSynthesis>;
  /**
   * The parts `synthesizeText` would send for this request, in order, each with the fingerprint of the
   * ledger entry that records its task (every part is checked; throws ValidationError). Sends nothing.
   */
  textParts(request: Omit<SpeechRequest, 'text'> & { text: string }): TextSynthesisPartPlan[];
  registerVoice(options: RegisterVoiceOptions): Promise<RegisteredVoice>;
  /** Voices this installation registered, newest first (from the job ledger). */
  listVoices(): Promise<LedgerEntry[]>;
  readonly governor: SpeechGovernor;
  stats(): SpeechStats;
}

/** The slot a submission holds; a 429 swaps it for a new one after waiting in the queue. */
interface Lease {
  slot: Slot;
  /** Set once the submission itself (not a resume or a join) owns the slot. */
  submitting: boolean;
}

/** What the paid part of a submission needs besides the body. */
interface PostOptions {
  /** Ends a 429's pause and the wait for a new slot; never the POST. */
  signal: AbortSignal | undefined;
  onQueued?: ((position: number) => void) | undefined;
  onDequeued?: (() => void) | undefined;
  /** POSTs declined with 429 sent again at most this often. */
  maxBusyRounds?: number | undefined;
}

/** A signal that aborts with whichever of `signals` aborts first (undefined ones are ignored). */
function eitherSignal(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  if (present.length <= 1) return present[0];
  return AbortSignal.any(present);
}

export function createSpeechClient(options: SpeechClientOptions): SpeechClient {
  const { http } = options;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const engine = options.engine ?? createJobEngine({ sleep, random, now });
  const ledger = engine.ledger;
  const governor: SpeechGovernor =
    options.governor ??
    new ConcurrencyGovernor({
      ...(options.concurrentSessions === undefined ? {} : { limit: options.concurrentSessions }),
      ...(options.initialConcurrency === undefined ? {} : { initialLimit: options.initialConcurrency }),
    });
  /** Slots held by unfinished tasks, released when a read sees the task ready. */
  const held = new Map<string, { slot: Slot; timer: NodeJS.Timeout }>();
  const stats: SpeechStats = { posts: 0, busyAnswers: 0, peakActive: 0 };

  function hold(taskId: string, slot: Slot): void {
    const timer = setTimeout(() => release(taskId), SLOT_EXPIRY_MS);
    timer.unref();
    const previous = held.get(taskId);
    if (previous && previous.slot !== slot) {
      clearTimeout(previous.timer);
      previous.slot.release();
    }
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

  const jitter = (ms: number) => ms * (1 + random() * TTS_POLL_JITTER);

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

  /** The ledger identity of one part's task: the same checked body is the same paid task. */
  function partFingerprint(body: SpeechRequest): string {
    return fingerprint({ service: SPEECH_SYNTHESIS_SERVICE, body });
  }

  /** The text split into parts, each checked (before the first one is sent). */
  function partBodies(request: Omit<SpeechRequest, 'text'> & { text: string }): SpeechRequest[] {
    const texts = splitSpeechText(request.text, request.language ? { language: request.language } : {});
    if (texts.length === 0) {
      throw new ValidationError('text is empty. Nothing was sent.', [{ path: 'text', message: 'empty' }]);
    }
    return texts.map((text) => validate({ ...request, text }));
  }

  function validate(request: SpeechRequest): SpeechRequest {
    const parsed = SpeechRequest.safeParse(request);
    const issues = parsed.success ? speechRequestIssues(parsed.data) : describeIssues(parsed.error, request);
    if (!parsed.success || issues.length > 0) {
      throw new ValidationError(`Invalid speech request: ${listIssues(issues)}. Nothing was sent.`, issues);
    }
    if (parsed.data.clone_audio?.startsWith('https://')) {
      assertPublicHttpUrl(parsed.data.clone_audio, { field: 'clone_audio', httpsOnly: true });
    }
    return parsed.data;
  }

  /**
   * Sends the POST, and again after each 429 (which admitted nothing) once the Retry-After has passed and
   * a slot of the now known limit is free. The POST itself takes no signal: once sent, it may admit the
   * task, and cutting it would leave an uncertain, unresumable submission.
   */
  async function post(body: SpeechRequest, lease: Lease, extra: PostOptions) {
    for (let round = 0; ; round++) {
      if (extra.signal?.aborted) {
        // Said as a transport failure that provably never arrived, so that the ledger records "not
        // created" and a repeat sends it without asking for allowResubmit.
        throw new ConnectionError(
          'The speech request was not sent: everyone waiting for it had stopped. Send it again when needed.',
          { requestMayHaveArrived: false, code: 'NOT_SENT' },
        );
      }
      try {
        stats.posts += 1;
        const response = await http.request({
          method: 'POST',
          path: `${TTS_API_PATH}/audio/speech`,
          json: body,
          schema: SpeechStart,
          idempotent: false,
          retryRateLimited: false,
        });
        return {
          taskId: response.data.taskId,
          retryAfterMs: parseRetryAfter(response.headers['retry-after']),
        };
      } catch (error) {
        if (
          !(ApiError.isInstance(error) && error.status === 429) ||
          round >= (extra.maxBusyRounds ?? MAX_BUSY_ROUNDS)
        )
          throw error;
        const pausedUntil = now() + busyPause(error);
        // The key is full: this request gives its slot back (it may have been taken before the limit was
        // known, or another client filled the key) and queues, first in line, for a slot of the limit the
        // 429 taught — then waits out what is left of the Retry-After.
        lease.slot.release();
        let waited = false;
        try {
          lease.slot = await governor.acquire({
            signal: extra.signal,
            onPosition: (position) => {
              waited = true;
              extra.onQueued?.(position);
            },
            front: true,
          });
        } catch {
          // Everyone waiting has gone. The 429 is the last answer, and it proves that nothing was created.
          throw error;
        }
        if (waited) extra.onDequeued?.();
        try {
          if (pausedUntil > now()) await sleep(pausedUntil - now(), extra.signal);
        } catch {
          throw error;
        }
      }
    }
  }

  async function submit(input: SpeechRequest, options: SpeechSubmitOptions = {}): Promise<SubmittedSpeech> {
    const extra = startCall(options);
    return withinDeadline(extra, 'The speech request could not be sent', (signal) =>
      submitRequest(input, { ...extra, signal, stopSending: signal }),
    );
  }

  /**
   * `signal` ends the caller's wait for the submission; `stopSending` ends the waits before a POST (a
   * slot, a 429's pause). A batch passes only `stopSending`, so that a POST in flight is still followed.
   */
  async function submitRequest(
    input: SpeechRequest,
    extra: Omit<SpeechSubmitOptions, 'signal'> & {
      signal?: AbortSignal | undefined;
      stopSending?: AbortSignal | undefined;
    },
  ): Promise<SubmittedSpeech> {
    const body = validate(input);
    let waited = false;
    const lease: Lease = {
      slot: await governor.acquire({
        signal: extra.stopSending,
        onPosition: (position) => {
          waited = true;
          extra.onQueued?.(position);
        },
      }),
      submitting: false,
    };
    if (waited) extra.onDequeued?.();
    let retryAfterMs: number | undefined;
    try {
      const started = await engine.start({
        service: SPEECH_SYNTHESIS_SERVICE,
        fingerprint: partFingerprint(body),
        title: body.text.slice(0, 80),
        request: { ...body },
        signal: extra.signal,
        reusable: (status) => status !== 'FAILURE',
        current: tasks.currentStatus,
        forceNew: extra.forceNew,
        allowResubmit: extra.allowResubmit,
        resubmitOption: 'allowResubmit',
        submit: async ({ signal }) => {
          lease.submitting = true;
          try {
            const posted = await post(body, lease, {
              signal: eitherSignal(signal, extra.stopSending),
              onQueued: extra.onQueued,
              onDequeued: extra.onDequeued,
              maxBusyRounds: extra.maxRetries,
            });
            retryAfterMs = posted.retryAfterMs;
            hold(posted.taskId, lease.slot);
            return { id: posted.taskId, status: 'PENDING' };
          } catch (error) {
            lease.slot.release();
            throw error;
          }
        },
      });
      if (!lease.submitting) {
        // Resumed, or joined an identical submission: this caller's slot follows the task unless it is over.
        if (started.status === 'SUCCESS' || started.status === 'FAILURE') lease.slot.release();
        else hold(started.id, lease.slot);
      } else if (!started.resumed) {
        // The start response's Retry-After holds for every reader of the task, here and in other processes.
        await engine.noteRead(SPEECH_SYNTHESIS_SERVICE, started.id, {
          status: 'PENDING',
          retryAfterMs: jitter(Math.max(retryAfterMs ?? 0, TTS_MIN_POLL_MS)),
        });
      }
      return { taskId: started.id, retryAfterMs, resumed: started.resumed };
    } catch (error) {
      // A submission that got as far as its POST owns the slot (it holds or releases it itself).
      if (!lease.submitting) lease.slot.release();
      throw error;
    }
  }

  /**
   * Speech tasks on the job engine's loop: the first read after the start response's Retry-After (at least
   * 1 s), then a quarter longer per read up to 15 s, jittered; a 429 is a pause, not a failure.
   */
  const tasks = defineJobResource<SpeechTask>({
    service: SPEECH_SYNTHESIS_SERVICE,
    kind: SPEECH_TASK,
    engine,
    cadence: { growth: TTS_POLL_GROWTH, maxIntervalMs: TTS_MAX_POLL_MS, jitter: TTS_POLL_JITTER },
    waitTimeoutMs: TTS_WAIT_TIMEOUT_MS,
    locate: (taskId) => ({
      id: taskId,
      path: `${TTS_API_PATH}/audio/speech/${encodeURIComponent(checkJobId(taskId, 'taskId'))}`,
    }),
    fetch: (path, call) =>
      http.request({
        method: 'GET',
        path,
        schema: SpeechTaskSchema,
        idempotent: true,
        retryRateLimited: false,
        ...requestOptionsOf(call),
      }),
    observed: (answer) => {
      const retryAfterMs = parseRetryAfter(answer.headers['retry-after']);
      return retryAfterMs === undefined ? {} : { retryAfterMs: jitter(retryAfterMs) };
    },
    // A 429 is not a failure: the same task is read again after the pause the service asked for (and the
    // 429 may teach the key's limit).
    retryAfter: (error) =>
      ApiError.isInstance(error) && error.status === 429
        ? busyPause(error)
        : ApiError.isInstance(error)
          ? error.retryAfterMs
          : undefined,
    // A task seen ready gives its slot of the key back.
    onRead: (task, taskId) => {
      if (task.ready) release(taskId);
    },
    failure: (task) =>
      task.successful === true && task.result?.url
        ? undefined
        : {
            errorMessage: jobErrorText(task.error) ?? (task.successful ? 'no audio URL in the result' : null),
          },
  });

  /** Waits for a task `submitRequest` returned: a new one after its start response's Retry-After. */
  function waitSubmitted(submitted: SubmittedSpeech, extra: SpeechWaitOptions): Promise<SpeechTask> {
    return tasks.wait(submitted.taskId, {
      ...extra,
      ...(submitted.resumed
        ? {}
        : { initialDelayMs: Math.max(submitted.retryAfterMs ?? 0, TTS_MIN_POLL_MS) }),
    });
  }

  async function synthesize(
    request: SpeechRequest,
    options: SpeechSubmitOptions & SpeechWaitOptions = {},
  ): Promise<{ task: SpeechTask; resumed: boolean }> {
    const extra = startCall(options);
    const submitted = await submit(request, extra);
    const task = await waitSubmitted(submitted, {
      ...(extra.signal ? { signal: extra.signal } : {}),
      timeoutMs: waitTimeoutMs(extra, TTS_WAIT_TIMEOUT_MS),
      ...(extra.onProgress ? { onProgress: extra.onProgress } : {}),
    });
    return { task, resumed: submitted.resumed };
  }

  function synthesizeText(
    request: Omit<SpeechRequest, 'text'> & { text: string },
    options: TextSynthesisOptions = {},
  ): Promise<TextSynthesis> {
    const call = startCall(options);
    return withinDeadline(call, 'The text could not be synthesised', (signal) =>
      synthesizeTextWithin(request, { ...call, signal }),
    );
  }

  async function synthesizeTextWithin(
    request: Omit<SpeechRequest, 'text'> & { text: string },
    extra: TextSynthesisOptions,
  ): Promise<TextSynthesis> {
    if (!options.downloader)
      throw new TypeError('synthesizeText needs a media downloader (createPolymodal provides one).');
    const downloader: MediaDownloader = options.downloader;
    // Every part is checked before the first one is sent.
    const bodies = partBodies(request);
    extra.signal?.throwIfAborted();
    const progress: TextSynthesisProgress = { parts: bodies.length, finished: 0, queued: 0, submitted: 0 };
    const queuedParts = new Set<number>();
    const report = () => extra.onProgress?.({ ...progress, queued: queuedParts.size });
    report();
    // Aborted by the caller, or by the first part that fails: parts not yet sent are then never sent
    // (the batch cannot be joined any more, and each would cost credits).
    const stop = new AbortController();
    let failure: { error: unknown } | undefined;
    const onCallerAbort = () => stop.abort(extra.signal?.reason);
    extra.signal?.addEventListener('abort', onCallerAbort, { once: true });
    const partOptions = {
      stopSending: stop.signal,
      ...(extra.allowResubmit ? { allowResubmit: true } : {}),
    };

    async function synthesizePart(body: SpeechRequest, index: number) {
      const queued = {
        onQueued: () => {
          if (!queuedParts.has(index)) {
            queuedParts.add(index);
            report();
          }
        },
        onDequeued: () => {
          if (queuedParts.delete(index)) report();
        },
      };
      const submitted = await submitRequest(body, {
        ...partOptions,
        maxRetries: extra.maxRetries,
        ...queued,
        ...(extra.forceNew ? { forceNew: true } : {}),
      });
      progress.submitted += 1;
      report();
      // An admitted part is followed to its end even once stopped: its slot is freed when it is seen
      // ready, and its outcome is recorded for a repeat to resume.
      let task = await waitSubmitted(submitted, {});
      stop.signal.throwIfAborted();
      let fetched: Awaited<ReturnType<MediaDownloader['fetchBytes']>>;
      try {
        fetched = await downloader.fetchBytes({
          url: task.result?.url as string,
          kind: 'audio',
          signal: stop.signal,
        });
      } catch (error) {
        // A result recorded long ago may have expired; synthesise that part again.
        if (
          !(submitted.resumed && ApiError.isInstance(error) && (error.status === 404 || error.status === 410))
        )
          throw error;
        const again = await submitRequest(body, { ...partOptions, ...queued, forceNew: true });
        task = await waitSubmitted(again, {});
        stop.signal.throwIfAborted();
        fetched = await downloader.fetchBytes({
          url: task.result?.url as string,
          kind: 'audio',
          signal: stop.signal,
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
          resumed: submitted.resumed,
        } satisfies TextSynthesisPart,
      };
    }

    const settled = Promise.allSettled(
      bodies.map((body, index) =>
        synthesizePart(body, index).catch((error: unknown) => {
          if (!stop.signal.aborted) {
            failure = { error };
            stop.abort(error);
          }
          throw error;
        }),
      ),
    );
    try {
      // The caller's abort answers at once; parts already sent go on in the background to their end.
      const stopped = new Promise<never>((_resolve, reject) => {
        const onStop = () => {
          if (extra.signal?.aborted) reject(extra.signal.reason);
        };
        if (stop.signal.aborted) onStop();
        else stop.signal.addEventListener('abort', onStop, { once: true });
      });
      stopped.catch(() => undefined);
      const results = await Promise.race([settled, stopped]);
      // After a failure, parts already admitted are finished (and recorded) before it is reported, so a
      // rerun resumes them instead of paying again.
      if (failure) throw failure.error;
      const parts = results.map(
        (item) => (item as PromiseFulfilledResult<{ bytes: Buffer; part: TextSynthesisPart }>).value,
      );
      const durations = parts.map((item) => item.part.durationSeconds);
      return {
        wav: concatWav(parts.map((item) => item.bytes)),
        parts: parts.map((item) => item.part),
        durationSeconds: durations.every((value) => typeof value === 'number')
          ? (durations as number[]).reduce((sum, value) => sum + value, 0)
          : undefined,
      };
    } finally {
      extra.signal?.removeEventListener('abort', onCallerAbort);
    }
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
      /** Why a file with a RIFF/WAVE header still holds no samples the platform can read (it answers 400). */
      let unreadable: string | undefined;
      try {
        mtimeMs = (await opened.handle.stat()).mtimeMs;
        await opened.handle.read(head, 0, 12, 0);
        if (size > 0 && isWav(head)) {
          // The same check every other WAV input gets (readWavHeader: PCM or float, fmt before data, a
          // data chunk the file really holds), made on the opened file before anything is sent.
          await readWavHeader(readAtOf(opened.handle), size, realPath).catch((error: unknown) => {
            if (!ValidationError.isInstance(error)) throw error;
            unreadable = error.issues[0]?.message ?? error.message;
          });
        }
      } finally {
        await opened.handle.close();
      }
      if (size === 0 || !isWav(head)) {
        throw new ValidationError(
          `audioFile: ${realPath} is not a WAV recording (checked by content). Nothing was sent.`,
          [{ path: 'audioFile', message: 'not a WAV file' }],
        );
      }
      if (unreadable !== undefined) {
        throw new ValidationError(
          `audioFile: ${realPath} is not a readable PCM WAV recording (${unreadable}). Give a PCM WAV, e.g. converted with \`ffmpeg -i <file> -ac 1 -c:a pcm_s16le voice.wav\`. Nothing was sent.`,
          [{ path: 'audioFile', message: unreadable }],
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
      ...requestOptionsOf(input),
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
    get: async (taskId, extra) => {
      const response = await tasks.read(taskId, extra);
      return { task: response.data, retryAfterMs: parseRetryAfter(response.headers['retry-after']) };
    },
    poll: tasks.poll,
    wait: tasks.wait,
    synthesize,
    synthesizeText,
    // submitRequest checks each body again before fingerprinting it: the same here, so that the names match.
    textParts: (request) =>
      partBodies(request).map((body) => ({ text: body.text, fingerprint: partFingerprint(validate(body)) })),
    registerVoice,
    listVoices: async () => (ledger ? ledger.list({ service: CUSTOM_VOICE_SERVICE }) : []),
    governor,
    stats: () => ({ ...stats }),
  };
}
