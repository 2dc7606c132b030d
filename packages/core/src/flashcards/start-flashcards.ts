/**
 * Starting a flashcards job at most once, from a local video or a URL.
 *
 * Every start carries an `idempotency_key` of this client's own, derived from the request (file content
 * identity or URL, and the options), unless the caller gives one. The service returns the active job for a
 * key it knows, so a start that was cut off after it arrived can be sent again without creating a second
 * job: start requests are therefore retried like reads. Once a job has finished, the same key starts a new
 * one; the job ledger is what resumes finished work instead of paying again. Asking for a new job on
 * purpose (`forceNew`) therefore sends a fresh key: the same key would hand back the still-active job.
 * An interrupted start is resent with the key it was first sent with.
 *
 * Checked before sending: the options (see `checkFlashcardOptions`), the file (inside an allowed directory,
 * opened once and read only through that descriptor, a video container by its first bytes whose structure
 * parses — an MP4 needs a `moov` with a duration —, at most 500 MB and 900 s, or the limits the service
 * last reported), YouTube URL shapes and public hosts for direct video URLs.
 */
import {
  FLASHCARD_VIDEO_EXTENSIONS,
  FLASHCARDS_MAX_UPLOAD_BYTES,
  FLASHCARDS_MAX_VIDEO_SECONDS,
} from '../constants/flashcards-constants.js';
import { FLASHCARDS_API_PATH, FLASHCARDS_SERVICE } from '../constants/service-table.js';
import { type FlashcardLimits, type FlashcardOptions, FlashcardStart } from '../contracts/flashcards.js';
import { ValidationError } from '../errors/polymodal-error.js';
import type { FileAccess } from '../files/create-file-access.js';
import { type OpenedFile, openRegularFile } from '../files/open-verified-file.js';
import { shareOpenedFile } from '../files/share-opened-file.js';
import { startCall } from '../http/call-options.js';
import type { HttpClient } from '../http/http-client.js';
import type { JobEngine } from '../jobs/job-engine.js';
import { SUBMITTING, UNKNOWN_OUTCOME } from '../jobs/submission-outcome.js';
import { fingerprint } from '../ledger/fingerprint.js';
import { inspectOpenedRecording, type RecordingInfo } from '../media/inspect-recording.js';
import { assertPublicHttpUrl } from '../net/assert-public-http-url.js';
import { createMultipartFileBody } from '../upload/create-multipart-file-body.js';
import { nodeCrypto } from '../util/builtins.js';
import { checkFlashcardOptions } from './check-flashcard-options.js';
import type { FlashcardJobs } from './flashcard-jobs.js';
import type { FlashcardSourceType, FlashcardStartOptions, StartedFlashcards } from './flashcards-types.js';
import { isYouTubeVideoUrl } from './youtube-url.js';

export interface FlashcardsDeps {
  http: HttpClient;
  engine: JobEngine;
  files: FileAccess | undefined;
  jobs: FlashcardJobs;
  /** The per-key limits the last start response reported. */
  limits: FlashcardLimits | undefined;
}

/** One start: what makes two requests the same, the key the caller gave, and how the request is sent. */
interface StartRequest {
  identity: Record<string, unknown>;
  givenKey: string | undefined;
  title: string;
  /** What the ledger keeps of the request. */
  request: Record<string, unknown>;
  options: FlashcardStartOptions;
  send: (idempotencyKey: string, signal: AbortSignal) => Promise<FlashcardStart>;
}

export async function startFlashcardsFromFile(
  deps: FlashcardsDeps,
  file: string,
  input: FlashcardOptions,
  extra: FlashcardStartOptions = {},
): Promise<StartedFlashcards> {
  const checked = checkFlashcardOptions(input);
  // Opened once and checked on the descriptor; the body of every attempt (a 503 or 429 is retried) is
  // read from it, never from the path, which may be swapped while a retry waits.
  const openVideo = () => (deps.files ? deps.files.openReadable(file) : openRegularFile(file));
  const opened = await openVideo();
  const video = shareOpenedFile(opened, openVideo);
  try {
    const info = await inspectOpenedRecording(opened, {
      extensions: FLASHCARD_VIDEO_EXTENSIONS,
      maxBytes: deps.limits?.max_upload_bytes ?? FLASHCARDS_MAX_UPLOAD_BYTES,
      maxDurationSeconds: deps.limits?.max_video_duration_seconds ?? FLASHCARDS_MAX_VIDEO_SECONDS,
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
    return await startOnce(deps, {
      identity: givenKey === undefined ? identity : { ...identity, idempotencyKey: givenKey },
      givenKey,
      title: info.name,
      request: { file: info.path, ...rest },
      options: extra,
      send: (idempotencyKey, signal) =>
        video.use((upload) =>
          postVideoFile(deps.http, {
            upload,
            info,
            fields: { idempotency_key: idempotencyKey, ...fields },
            extra,
            signal,
          }),
        ),
    });
  } finally {
    await video.release();
  }
}

async function postVideoFile(
  http: HttpClient,
  post: {
    upload: OpenedFile;
    info: RecordingInfo;
    fields: Record<string, string>;
    extra: FlashcardStartOptions;
    signal: AbortSignal;
  },
): Promise<FlashcardStart> {
  const { upload, info, extra } = post;
  const response = await http.request({
    method: 'POST',
    path: `${FLASHCARDS_API_PATH}/jobs`,
    multipart: () =>
      createMultipartFileBody({
        field: 'video_file',
        file: upload,
        filename: info.name,
        contentType: info.contentType,
        fields: post.fields,
        ...(extra.onUploadProgress ? { onProgress: extra.onUploadProgress } : {}),
      }),
    schema: FlashcardStart,
    idempotent: true,
    signal: post.signal,
    maxRetries: extra.maxRetries,
  });
  return response.data;
}

export async function startFlashcardsFromUrl(
  deps: FlashcardsDeps,
  url: string,
  input: FlashcardOptions & { source_type?: FlashcardSourceType },
  extra: FlashcardStartOptions = {},
): Promise<StartedFlashcards> {
  const { source_type: sourceType = 'youtube', ...optionInput } = input;
  const checked = checkFlashcardOptions(optionInput);
  checkVideoUrl(url, sourceType);
  const { idempotency_key: givenKey, ...rest } = checked;
  const identity = { service: FLASHCARDS_SERVICE, url, sourceType, options: rest };
  return startOnce(deps, {
    identity: givenKey === undefined ? identity : { ...identity, idempotencyKey: givenKey },
    givenKey,
    title: url,
    request: { url, source_type: sourceType, ...rest },
    options: extra,
    send: async (idempotencyKey, signal) =>
      (
        await deps.http.request({
          method: 'POST',
          path: `${FLASHCARDS_API_PATH}/jobs/from-url`,
          json: { url, source_type: sourceType, ...rest, idempotency_key: idempotencyKey },
          schema: FlashcardStart,
          idempotent: true,
          signal,
          maxRetries: extra.maxRetries,
        })
      ).data,
  });
}

function checkVideoUrl(url: string, sourceType: FlashcardSourceType): void {
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
}

/**
 * Starts a job at most once. The idempotency key is the caller's, else the one an interrupted start of
 * this request was sent with, else one derived from the identity (a fresh one when a new job is asked for
 * on purpose).
 */
async function startOnce(deps: FlashcardsDeps, start: StartRequest): Promise<StartedFlashcards> {
  const { identity, givenKey } = start;
  const extra = startCall(start.options);
  let startLimits: FlashcardLimits | undefined;
  let usedKey: string | undefined;
  const derivedKey = `pm-${fingerprint(extra.forceNew ? { ...identity, nonce: nodeCrypto().randomUUID() } : identity).slice(0, 48)}`;
  const started = await deps.engine.start({
    service: FLASHCARDS_SERVICE,
    fingerprint: fingerprint(identity),
    title: start.title,
    request: start.request,
    signal: extra.signal,
    deadline: extra.deadline,
    reusable: (status) => !['failed', 'cancelled', 'canceled'].includes(status),
    current: deps.jobs.currentStatus,
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
      const data = await start.send(usedKey, signal);
      startLimits = data.limits;
      if (data.limits) deps.limits = data.limits;
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
