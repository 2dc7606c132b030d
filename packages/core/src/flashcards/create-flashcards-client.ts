/**
 * Client of the video flashcards service (`/api/video-flashcards/v1`).
 *
 * Every start carries an `idempotency_key` of this client's own, derived from the request (file content
 * identity or URL, and the options), unless the caller gives one. The service returns the active job for a
 * key it knows, so a start that was cut off after it arrived can be sent again without creating a second
 * job: start requests are therefore retried like reads. Once a job has finished, the same key starts a new
 * one; the job ledger is what resumes finished work instead of paying again. Asking for a new job on
 * purpose (`forceNew`) therefore sends a fresh key: the same key would hand back the still-active job.
 * An interrupted start is resent with the key it was first sent with.
 *
 * Clip and video URLs in a result are resolved against the platform's base URL (the service may answer
 * with paths), so an agent gets addresses it can open; they are downloaded without credentials.
 *
 * Checked before sending: the learning direction and the explicit language pair (which must match it),
 * `max_words_per_segment` 1–80, the key length, the file (inside an allowed directory, opened once and read
 * only through that descriptor, a video container by its first bytes whose structure parses — an MP4 needs
 * a `moov` with a duration —, at most 500 MB and 900 s, or the limits the service last reported), YouTube
 * URL shapes and public hosts for direct video URLs.
 */

import {
  DIRECTION_LANGUAGES,
  FLASHCARD_TERMINAL_STATES,
  FLASHCARD_VIDEO_EXTENSIONS,
  FLASHCARDS_API_PATH,
  FLASHCARDS_MAX_UPLOAD_BYTES,
  FLASHCARDS_MAX_VIDEO_SECONDS,
  FlashcardJob,
  type FlashcardLimits,
  FlashcardOptions,
  FlashcardStart,
} from '../contracts/flashcards.js';
import { jobErrorText } from '../contracts/video.js';
import { describeIssues, listIssues } from '../errors/describe-issues.js';
import { JobFailedError, ValidationError } from '../errors/index.js';
import { type FileAccess, openRegularFile, shareOpenedFile } from '../files/index.js';
import {
  type CallOptions,
  type HttpClient,
  pollCallOptions,
  requestOptionsOf,
  startCall,
  waitTimeoutMs,
} from '../http/index.js';
import {
  createJobEngine,
  currentStatus,
  type JobEngine,
  type PollOutcome,
  SUBMITTING,
  UNKNOWN_OUTCOME,
  waitUntilStopped,
} from '../jobs/index.js';
import { fingerprint } from '../ledger/index.js';
import { assertPublicHttpUrl } from '../net/assert-public-http-url.js';
import { FLASHCARDS_SERVICE, serviceOf } from '../services/service-table.js';
import { createMultipartFileBody, inspectOpenedRecording } from '../upload/index.js';
import { nodeCrypto } from '../util/builtins.js';
import { checkJobId } from '../video/video-job-client.js';

export { FLASHCARDS_SERVICE };
export const FLASHCARDS_POLL_INTERVAL_MS = serviceOf(FLASHCARDS_SERVICE).pollIntervalMs;
export const FLASHCARDS_WAIT_TIMEOUT_MS = 60 * 60 * 1000;

export type FlashcardSourceType = 'youtube' | 'direct_video_url';

/** `timeout` bounds the whole start like `deadline`; `maxRetries` applies to the start request. */
export interface FlashcardStartOptions extends CallOptions {
  /** How long to wait for an identical start already running elsewhere (epoch ms). */
  deadline?: number;
  /** Start a new job even if this installation already made the same request. */
  forceNew?: boolean;
  onUploadProgress?: (sentBytes: number, totalBytes: number) => void;
}

export interface StartedFlashcards {
  jobId: string;
  status: string;
  /** The per-key limits the start response reported (absent when the job was resumed). */
  limits?: FlashcardLimits | undefined;
  idempotencyKey: string;
  resumed: boolean;
  /** True when this call joined an identical start in flight. */
  joined: boolean;
}

/** `timeout` and `timeoutMs` both bound the whole wait (the earlier wins); `maxRetries` is failed reads in a row. */
export interface FlashcardWaitOptions extends CallOptions {
  timeoutMs?: number;
  onProgress?: (job: FlashcardJob) => void;
}

/** `timeout` ends the waiting earlier than `deadline` when it comes first; `maxRetries` is failed reads in a row. */
export interface FlashcardPollOptions extends CallOptions {
  /** When the waiting ends (epoch ms); the answer is then `done: false` with the newest job known. */
  deadline: number;
  firstReadDeadline?: number;
  onProgress?: (job: FlashcardJob) => void | Promise<void>;
}

export interface FlashcardsClient {
  /** Uploads a local video (`video_file`) and starts a job. */
  startFromFile(
    file: string,
    options: FlashcardOptions,
    extra?: FlashcardStartOptions,
  ): Promise<StartedFlashcards>;
  /** Starts a job from a YouTube URL (default) or a public direct video URL. */
  startFromUrl(
    url: string,
    options: FlashcardOptions & { source_type?: FlashcardSourceType },
    extra?: FlashcardStartOptions,
  ): Promise<StartedFlashcards>;
  get(jobId: string, options?: CallOptions): Promise<FlashcardJob>;
  /** Waits until the job stops or `deadline` comes, never reading faster than every 3 s. */
  poll(jobId: string, options: FlashcardPollOptions): Promise<PollOutcome<FlashcardJob>>;
  /** Polls until ready; a failed or cancelled job → JobFailedError. */
  wait(jobId: string, options?: FlashcardWaitOptions): Promise<FlashcardJob>;
  /** Limits from the last start response, if any. */
  readonly limits: FlashcardLimits | undefined;
}

const YOUTUBE_ID = /^[A-Za-z0-9_-]{11}$/;

/** Whether a URL is a YouTube watch, Shorts or short-link URL with an 11-character video id. */
export function isYouTubeVideoUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
  const host = url.hostname.toLowerCase();
  if (host === 'youtu.be') return YOUTUBE_ID.test(url.pathname.slice(1));
  if (!['youtube.com', 'www.youtube.com', 'm.youtube.com'].includes(host)) return false;
  if (url.pathname === '/watch') return YOUTUBE_ID.test(url.searchParams.get('v') ?? '');
  const shorts = /^\/shorts\/([^/]+)\/?$/.exec(url.pathname);
  return shorts !== null && YOUTUBE_ID.test(shorts[1] ?? '');
}

export function isFlashcardJobDone(job: FlashcardJob): boolean {
  return job.ready || FLASHCARD_TERMINAL_STATES.includes(job.status);
}

export function createFlashcardsClient(options: {
  http: HttpClient;
  engine?: JobEngine;
  files?: FileAccess;
  /** Minimum time between two reads of a job (default 3 s). */
  pollIntervalMs?: number;
}): FlashcardsClient {
  const { http, files } = options;
  const engine = options.engine ?? createJobEngine();
  let limits: FlashcardLimits | undefined;

  function checkOptions(input: FlashcardOptions): FlashcardOptions {
    const parsed = FlashcardOptions.safeParse(input);
    if (!parsed.success) {
      const issues = describeIssues(parsed.error, input);
      throw new ValidationError(
        `Invalid flashcard options: ${listIssues(issues)}. Nothing was sent.`,
        issues,
      );
    }
    const pair = DIRECTION_LANGUAGES[parsed.data.learning_direction];
    for (const [field, expected] of [
      ['source_language', pair.source],
      ['target_language', pair.target],
    ] as const) {
      const given = parsed.data[field];
      if (given !== undefined && given !== expected) {
        throw new ValidationError(
          `${field} ${given} does not match ${parsed.data.learning_direction} (expected ${expected}). Omit the pair or make it match. Nothing was sent.`,
          [{ path: field, message: 'does not match the learning direction' }],
        );
      }
    }
    return parsed.data;
  }

  /**
   * Starts a job at most once. `identity` is what makes two requests the same; the idempotency key is the
   * caller's, else the one an interrupted start of this request was sent with, else one derived from the
   * identity (a fresh one when a new job is asked for on purpose).
   */
  async function start(
    identity: Record<string, unknown>,
    givenKey: string | undefined,
    title: string,
    request: Record<string, unknown>,
    options: FlashcardStartOptions,
    send: (idempotencyKey: string, signal: AbortSignal) => Promise<FlashcardStart>,
  ): Promise<StartedFlashcards> {
    const extra = startCall(options);
    let startLimits: FlashcardLimits | undefined;
    let usedKey: string | undefined;
    const derivedKey = `pm-${fingerprint(extra.forceNew ? { ...identity, nonce: nodeCrypto().randomUUID() } : identity).slice(0, 48)}`;
    const started = await engine.start({
      service: FLASHCARDS_SERVICE,
      fingerprint: fingerprint(identity),
      title,
      request,
      signal: extra.signal,
      deadline: extra.deadline,
      reusable: (status) => !['failed', 'cancelled', 'canceled'].includes(status),
      current: (id, { signal, deadline }) =>
        currentStatus(
          (request) => poll(id, request),
          (job) => job.status,
          {
            service: FLASHCARDS_SERVICE,
            id,
            signal,
            deadline,
          },
        ),
      forceNew: extra.forceNew,
      // The idempotency key makes a resend of an interrupted start return the job it may have created.
      resendable: true,
      submit: async ({ previous, signal, save }) => {
        const interruptedKey =
          previous && previous.id === null && [SUBMITTING, UNKNOWN_OUTCOME].includes(previous.lastStatus)
            ? previous.data?.idempotencyKey
            : undefined;
        usedKey = givenKey ?? (typeof interruptedKey === 'string' ? interruptedKey : derivedKey);
        await save({ data: { idempotencyKey: usedKey } });
        const data = await send(usedKey, signal);
        startLimits = data.limits;
        if (data.limits) limits = data.limits;
        return { id: data.job_id, status: data.status };
      },
    });
    return {
      jobId: started.id,
      status: started.status,
      limits: startLimits,
      idempotencyKey: usedKey ?? givenKey ?? derivedKey,
      resumed: started.resumed,
      joined: started.joined,
    };
  }

  async function startFromFile(
    file: string,
    input: FlashcardOptions,
    extra: FlashcardStartOptions = {},
  ): Promise<StartedFlashcards> {
    const checked = checkOptions(input);
    // Opened once and checked on the descriptor; the body of every attempt (a 503 or 429 is retried) is
    // read from it, never from the path, which may be swapped while a retry waits.
    const openVideo = () => (files ? files.openReadable(file) : openRegularFile(file));
    const opened = await openVideo();
    const video = shareOpenedFile(opened, openVideo);
    try {
      const info = await inspectOpenedRecording(opened, {
        extensions: FLASHCARD_VIDEO_EXTENSIONS,
        maxBytes: limits?.max_upload_bytes ?? FLASHCARDS_MAX_UPLOAD_BYTES,
        maxDurationSeconds: limits?.max_video_duration_seconds ?? FLASHCARDS_MAX_VIDEO_SECONDS,
      });
      const { idempotency_key: givenKey, ...rest } = checked;
      const identity = {
        service: FLASHCARDS_SERVICE,
        file: info.path,
        size: info.size,
        mtimeMs: info.mtimeMs,
        options: rest,
      };
      const fields: Record<string, string> = {};
      for (const [name, value] of Object.entries(rest)) {
        if (value !== undefined) fields[name] = String(value);
      }
      return await start(
        givenKey === undefined ? identity : { ...identity, idempotencyKey: givenKey },
        givenKey,
        info.name,
        { file: info.path, ...rest },
        extra,
        (idempotencyKey, signal) =>
          video.use(
            async (upload) =>
              (
                await http.request({
                  method: 'POST',
                  path: `${FLASHCARDS_API_PATH}/jobs`,
                  multipart: () =>
                    createMultipartFileBody({
                      field: 'video_file',
                      file: upload,
                      filename: info.name,
                      contentType: info.contentType,
                      fields: { idempotency_key: idempotencyKey, ...fields },
                      ...(extra.onUploadProgress ? { onProgress: extra.onUploadProgress } : {}),
                    }),
                  schema: FlashcardStart,
                  idempotent: true,
                  signal,
                  maxRetries: extra.maxRetries,
                })
              ).data,
          ),
      );
    } finally {
      await video.release();
    }
  }

  async function startFromUrl(
    url: string,
    input: FlashcardOptions & { source_type?: FlashcardSourceType },
    extra: FlashcardStartOptions = {},
  ): Promise<StartedFlashcards> {
    const { source_type: sourceType = 'youtube', ...optionInput } = input;
    const checked = checkOptions(optionInput);
    if (sourceType === 'youtube') {
      if (!isYouTubeVideoUrl(url)) {
        throw new ValidationError(
          `${url} is not a YouTube video URL (youtube.com/watch?v=…, youtube.com/shorts/…, youtu.be/…). For a video file on the web use source_type direct_video_url. Nothing was sent.`,
          [{ path: 'url', message: 'not a YouTube video URL' }],
        );
      }
    } else if (sourceType === 'direct_video_url') {
      assertPublicHttpUrl(url, { field: 'url' });
    } else {
      throw new ValidationError(`source_type must be youtube or direct_video_url. Nothing was sent.`, [
        { path: 'source_type', message: 'invalid' },
      ]);
    }
    const { idempotency_key: givenKey, ...rest } = checked;
    const identity = { service: FLASHCARDS_SERVICE, url, sourceType, options: rest };
    return start(
      givenKey === undefined ? identity : { ...identity, idempotencyKey: givenKey },
      givenKey,
      url,
      { url, source_type: sourceType, ...rest },
      extra,
      async (idempotencyKey, signal) =>
        (
          await http.request({
            method: 'POST',
            path: `${FLASHCARDS_API_PATH}/jobs/from-url`,
            json: { url, source_type: sourceType, ...rest, idempotency_key: idempotencyKey },
            schema: FlashcardStart,
            idempotent: true,
            signal,
            maxRetries: extra.maxRetries,
          })
        ).data,
    );
  }

  async function get(
    jobId: string,
    request: CallOptions & { deadline?: number | undefined } = {},
  ): Promise<FlashcardJob> {
    const path = `${FLASHCARDS_API_PATH}/jobs/${encodeURIComponent(checkJobId(jobId))}`;
    const response = await engine.observe(
      FLASHCARDS_SERVICE,
      jobId,
      async () => {
        const answer = await http.request({
          method: 'GET',
          path,
          schema: FlashcardJob,
          idempotent: true,
          ...requestOptionsOf(request),
        });
        return { ...answer, data: withAbsoluteUrls(answer.data, http.baseUrl) };
      },
      ({ data: job }) => ({ status: job.status, body: job }),
    );
    return response.data;
  }

  function poll(jobId: string, request: FlashcardPollOptions): Promise<PollOutcome<FlashcardJob>> {
    checkJobId(jobId);
    return engine.poll<FlashcardJob>({
      service: FLASHCARDS_SERVICE,
      id: jobId,
      read: ({ signal, deadline }) => get(jobId, { signal, deadline, maxRetries: 0 }),
      isDone: isFlashcardJobDone,
      status: (job) => job.status,
      intervalMs: options.pollIntervalMs ?? FLASHCARDS_POLL_INTERVAL_MS,
      ...pollCallOptions(request),
      ...(request.firstReadDeadline === undefined ? {} : { firstReadDeadline: request.firstReadDeadline }),
      ...(request.onProgress ? { onValue: request.onProgress } : {}),
    });
  }

  async function wait(jobId: string, request: FlashcardWaitOptions = {}): Promise<FlashcardJob> {
    const job = await waitUntilStopped(
      (pollRequest: FlashcardPollOptions) => poll(jobId, pollRequest),
      {
        signal: request.signal,
        maxRetries: request.maxRetries,
        ...(request.onProgress ? { onProgress: request.onProgress } : {}),
      },
      {
        service: FLASHCARDS_SERVICE,
        id: jobId,
        timeoutMs: waitTimeoutMs(request, FLASHCARDS_WAIT_TIMEOUT_MS),
        status: (value) => value.status,
      },
    );
    if (job.successful !== true || !job.result) {
      throw new JobFailedError({
        service: FLASHCARDS_SERVICE,
        jobId,
        status: job.status,
        errorMessage: jobErrorText(job.error),
      });
    }
    return job;
  }

  return {
    startFromFile,
    startFromUrl,
    get,
    poll,
    wait,
    get limits() {
      return limits;
    },
  };
}

/** The job with every clip and video URL made absolute against the platform's base URL. */
function withAbsoluteUrls(job: FlashcardJob, baseUrl: string): FlashcardJob {
  const result = job.result;
  if (!result) return job;
  const absolute = (url: string | null | undefined) => {
    if (typeof url !== 'string' || url === '') return url;
    try {
      return new URL(url, `${baseUrl}/`).toString();
    } catch {
      return url;
    }
  };
  return {
    ...job,
    result: {
      ...result,
      ...(result.media
        ? { media: { ...result.media, original_video_url: absolute(result.media.original_video_url) } }
        : {}),
      segments: result.segments.map((segment) =>
        segment.video
          ? {
              ...segment,
              video: {
                ...segment.video,
                original_segment_url: absolute(segment.video.original_segment_url),
                rendered_segment_url: absolute(segment.video.rendered_segment_url),
              },
            }
          : segment,
      ),
    },
  };
}
