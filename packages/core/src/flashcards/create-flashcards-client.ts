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
  FLASHCARD_VIDEO_EXTENSIONS,
  FLASHCARDS_MAX_UPLOAD_BYTES,
  FLASHCARDS_MAX_VIDEO_SECONDS,
} from '../constants/flashcards-constants.js';
import { FLASHCARDS_API_PATH, FLASHCARDS_SERVICE } from '../constants/service-table.js';
import { jobErrorText } from '../constants/video-constants.js';
import {
  FlashcardJob,
  type FlashcardLimits,
  FlashcardOptions,
  FlashcardStart,
} from '../contracts/flashcards.js';
import { describeIssues, listIssues } from '../errors/describe-issues.js';
import { ValidationError } from '../errors/polymodal-error.js';
import type { FileAccess } from '../files/create-file-access.js';
import { openRegularFile } from '../files/open-verified-file.js';
import { shareOpenedFile } from '../files/share-opened-file.js';
import { type CallOptions, requestOptionsOf, startCall } from '../http/call-options.js';
import type { HttpClient } from '../http/http-client.js';
import { createJobEngine, type JobEngine, SUBMITTING, UNKNOWN_OUTCOME } from '../jobs/create-job-engine.js';
import { defineJobResource, type JobPollOptions, type JobWaitOptions } from '../jobs/job-resource.js';
import type { PollOutcome } from '../jobs/poll-job.js';
import { fingerprint } from '../ledger/fingerprint.js';
import { inspectOpenedRecording } from '../media/inspect-recording.js';
import { assertPublicHttpUrl } from '../net/assert-public-http-url.js';
import { createMultipartFileBody } from '../upload/create-multipart-file-body.js';
import { nodeCrypto } from '../util/builtins.js';
import { checkJobId } from '../video/video-job-client.js';
import { FLASHCARDS_JOB } from '../views/flashcards-job.js';
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
  /** One read of the job (results with absolute clip URLs). */
  retrieve(jobId: string, options?: CallOptions): Promise<FlashcardJob>;
  /** Waits until the job stops or `deadline` comes, never reading faster than every 3 s. */
  poll(jobId: string, options: JobPollOptions<FlashcardJob>): Promise<PollOutcome<FlashcardJob>>;
  /** Polls until ready; a failed or cancelled job → JobFailedError. */
  wait(jobId: string, options?: JobWaitOptions<FlashcardJob>): Promise<FlashcardJob>;
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
  const jobs = defineJobResource<FlashcardJob>({
    service: FLASHCARDS_SERVICE,
    kind: FLASHCARDS_JOB,
    engine,
    intervalMs: options.pollIntervalMs,
    waitTimeoutMs: FLASHCARDS_WAIT_TIMEOUT_MS,
    locate: (jobId) => ({
      id: jobId,
      path: `${FLASHCARDS_API_PATH}/jobs/${encodeURIComponent(checkJobId(jobId))}`,
    }),
    fetch: async (path, call) => {
      const answer = await http.request({
        method: 'GET',
        path,
        schema: FlashcardJob,
        idempotent: true,
        ...requestOptionsOf(call),
      });
      return { ...answer, data: withAbsoluteUrls(answer.data, http.baseUrl) };
    },
    // Ready without a result (failed, cancelled) → JobFailedError.
    failure: (job) =>
      job.successful === true && job.result ? undefined : { errorMessage: jobErrorText(job.error) },
  });

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
      current: jobs.currentStatus,
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

  return {
    startFromFile,
    startFromUrl,
    retrieve: jobs.retrieve,
    poll: jobs.poll,
    wait: jobs.wait,
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
