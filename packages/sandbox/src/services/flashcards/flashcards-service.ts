/**
 * The video flashcards service (`/api/video-flashcards/v1`): jobs from an uploaded video (multipart,
 * streamed to disk, duration read from the file) or from a URL (YouTube watch/Shorts/short links, or a
 * public direct video URL under the private-network and redirect rules), per-key limits (requests per
 * minute, concurrent jobs, daily video minutes) reported in every start response and enforced, idempotent
 * starts, and status with `ready`/`successful`/`progress`/`media`/`result`/`error` computed from the clock.
 */
import { createHash, randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { FLASHCARDS_API_PATH } from '@polymodal/core/constants';
import { sniffVideoContainer } from '@polymodal/core/media';
import { parseBuffer, parseFile } from 'music-metadata';
import { HttpError } from '../../framework/http-error.js';
import type { RequestContext } from '../../framework/request-context.js';
import type { Router } from '../../framework/router.js';
import { json, type SandboxResponse } from '../../framework/sandbox-response.js';
import type { SandboxService, ServiceContext } from '../../framework/sandbox-service.js';
import { scaled, type TimelinePhase, timelinePosition } from '../../media/job-timeline.js';
import { absoluteUrl, createMediaFiles } from '../../media/media-files.js';
import { SAMPLE_VIDEO_SECONDS, sampleVideo } from '../../media/media-fixtures.js';
import {
  authenticateMedia,
  CANCEL_MARKER,
  dayOf,
  FAIL_MARKER,
  hasMarker,
  type MediaCaller,
  readObject,
  recordJob,
  rejectUnknownFields,
} from '../../media/media-request.js';
import { receiveForm } from '../../media/receive-form.js';
import { lookUpRemote } from '../../media/resolve-media-url.js';
import { createSlidingWindow } from '../../media/sliding-window.js';
import { buildFlashcards, type FlashcardMaterial } from './build-flashcards.js';
import {
  type FlashcardOptions,
  OPTION_FIELDS,
  parseFlashcardOptions,
  youtubeVideoId,
} from './flashcard-options.js';

export { FLASHCARDS_API_PATH };
export const FLASHCARDS_COUNTER = 'flashcardJobs';
export const VIDEO_EXTENSIONS = ['.mp4', '.mov', '.mkv', '.webm', '.m4v', '.avi', '.mpeg', '.mpg'];
/** Bytes per second assumed when a container's duration cannot be read (2 Mbit/s). */
const ESTIMATE_BYTES_PER_SECOND = 250_000;
const MULTIPART_SLACK_BYTES = 1024 * 1024;

type Stage =
  | 'queued'
  | 'downloading'
  | 'separating_vocals'
  | 'asr'
  | 'translating'
  | 'extracting_words'
  | 'cutting_segments'
  | 'rendering';
const STAGE_MESSAGES: Record<Stage | 'done' | 'failed' | 'cancelled', string> = {
  queued: 'Waiting for a worker',
  downloading: 'Downloading the video',
  separating_vocals: 'Separating vocals from background audio',
  asr: 'Transcribing the source language',
  translating: 'Translating to the target language',
  extracting_words: 'Extracting word-level vocabulary',
  cutting_segments: 'Cutting source clips',
  rendering: 'Rendering word-card overlays',
  done: 'Flashcards are ready',
  failed: 'Processing failed',
  cancelled: 'The job was cancelled',
};

interface Source {
  kind: 'upload' | 'youtube' | 'direct_video_url';
  fingerprint: string;
  title: string;
  durationSeconds: number;
  sourceUrl: string | null;
  file: { path: string; size: number; name: string } | undefined;
  marker: string;
}

interface FlashcardJob {
  id: string;
  userId: string;
  key: string;
  createdAt: number;
  options: FlashcardOptions;
  source: Source;
  phases: TimelinePhase<Stage>[];
  outcome: 'done' | 'failed' | 'cancelled';
  material: FlashcardMaterial | undefined;
  urls:
    | { original: string | null; clips: { original: string | null; rendered: string | null }[] }
    | undefined;
}

function planStages(
  options: FlashcardOptions,
  source: Source,
  outcome: FlashcardJob['outcome'],
  speed: number,
): TimelinePhase<Stage>[] {
  const minutes = source.durationSeconds / 60;
  const phases: TimelinePhase<Stage>[] = [{ name: 'queued', ms: scaled(1, speed) }];
  if (source.kind !== 'upload') phases.push({ name: 'downloading', ms: scaled(1 + minutes, speed) });
  if (!options.skipVocalSeparation)
    phases.push({ name: 'separating_vocals', ms: scaled(1 + minutes, speed) });
  phases.push({ name: 'asr', ms: scaled(1 + 2 * minutes, speed) });
  // A job that fails or is cancelled stops during recognition.
  if (outcome !== 'done') return phases;
  phases.push(
    { name: 'translating', ms: scaled(1, speed) },
    { name: 'extracting_words', ms: scaled(0.5, speed) },
  );
  phases.push({ name: 'cutting_segments', ms: scaled(0.5 + minutes, speed) });
  if (options.includeRenderedSegments) phases.push({ name: 'rendering', ms: scaled(1 + 2 * minutes, speed) });
  return phases;
}

export function createFlashcardsService(context: ServiceContext): SandboxService {
  const { clock, counters, config } = context;
  const limits = config.media.flashcards;
  const files = createMediaFiles(FLASHCARDS_API_PATH);
  const rate = createSlidingWindow({ limit: limits.requestsPerMinute, windowMs: 60_000 });
  let jobs = new Map<string, FlashcardJob>();
  let idempotency = new Map<string, string>();

  const isReady = (job: FlashcardJob, now = clock.now()) =>
    timelinePosition(job.createdAt, job.phases, now).done;
  const minutesUsedToday = (key: string) => {
    const today = dayOf(clock.now());
    const seconds = [...jobs.values()]
      .filter((job) => job.key === key && dayOf(job.createdAt) === today)
      .reduce((sum, job) => sum + job.source.durationSeconds, 0);
    return Math.round((seconds / 60) * 100) / 100;
  };
  const limitsView = (key: string) => ({
    requests_per_minute: limits.requestsPerMinute,
    concurrent_video_jobs: limits.concurrentVideoJobs,
    daily_video_minutes: limits.dailyVideoMinutes,
    today_video_minutes_used: minutesUsedToday(key),
    max_video_duration_seconds: limits.maxVideoDurationSeconds,
    max_upload_bytes: limits.maxUploadBytes,
  });

  /** Authenticates and counts the request against the key's requests-per-minute limit. */
  const admit = (request: RequestContext): MediaCaller => {
    const caller = authenticateMedia(request);
    const decision = rate.hit(caller.key, clock.now());
    if (!decision.allowed) {
      const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
      throw new HttpError(
        429,
        `rate limit: at most ${limits.requestsPerMinute} requests per minute per key; retry in ${seconds} s`,
        {
          headers: { 'retry-after': String(seconds) },
          fields: { success: false, code: 'rate_limited' },
        },
      );
    }
    return caller;
  };

  const startResponse = (job: FlashcardJob, status: number) =>
    json(status, {
      success: true,
      job_id: job.id,
      status: isReady(job) ? job.outcome : 'queued',
      statusPath: `${FLASHCARDS_API_PATH}/jobs/${job.id}`,
      limits: limitsView(job.key),
    });

  /** The active job of the same idempotency key, if any (a different source under that key is a 409). */
  const findActive = (
    caller: MediaCaller,
    options: FlashcardOptions,
    fingerprint: string,
  ): FlashcardJob | undefined => {
    if (!options.idempotencyKey) return undefined;
    const job = jobs.get(idempotency.get(`${caller.user.id}\n${options.idempotencyKey}`) ?? '');
    if (!job || isReady(job)) return undefined;
    if (
      job.source.fingerprint !== fingerprint ||
      job.options.learningDirection !== options.learningDirection
    ) {
      throw new HttpError(
        409,
        'idempotency_key is already used by an active job for another video or direction; use a new key',
        {
          fields: { success: false, code: 'idempotency_conflict' },
        },
      );
    }
    return job;
  };

  const create = (caller: MediaCaller, options: FlashcardOptions, source: Source): SandboxResponse => {
    const existing = findActive(caller, options, source.fingerprint);
    if (existing) return startResponse(existing, 200);
    const now = clock.now();
    const active = [...jobs.values()].filter((job) => job.key === caller.key && !isReady(job, now));
    if (active.length >= limits.concurrentVideoJobs) {
      throw new HttpError(
        429,
        `too many active video jobs for this key: ${active.length} of ${limits.concurrentVideoJobs}; wait until one is ready`,
        {
          headers: { 'retry-after': '5' },
          fields: { success: false, code: 'concurrent_limit', limits: limitsView(caller.key) },
        },
      );
    }
    const used = minutesUsedToday(caller.key);
    if (used + source.durationSeconds / 60 > limits.dailyVideoMinutes) {
      throw new HttpError(
        429,
        `daily video minutes exceeded: ${used} of ${limits.dailyVideoMinutes} minutes used today and this video is ${Math.ceil(source.durationSeconds / 60)} min; try again tomorrow (UTC)`,
        { fields: { success: false, code: 'daily_minutes_exceeded', limits: limitsView(caller.key) } },
      );
    }
    const outcome = hasMarker(source.marker, CANCEL_MARKER)
      ? 'cancelled'
      : hasMarker(source.marker, FAIL_MARKER)
        ? 'failed'
        : 'done';
    const job: FlashcardJob = {
      id: `vf_${randomBytes(12).toString('hex')}`,
      userId: caller.user.id,
      key: caller.key,
      createdAt: now,
      options,
      source,
      phases: planStages(options, source, outcome, context.speed),
      outcome,
      material: undefined,
      urls: undefined,
    };
    jobs.set(job.id, job);
    if (options.idempotencyKey) idempotency.set(`${caller.user.id}\n${options.idempotencyKey}`, job.id);
    recordJob(counters, caller.user, FLASHCARDS_COUNTER, Math.ceil(source.durationSeconds / 60));
    return startResponse(job, 202);
  };

  /** Unknown fields are invalid requests like any other option error (with the service's error code). */
  const rejectUnknown = (values: Record<string, unknown>, known: readonly string[]) => {
    try {
      rejectUnknownFields(values, known);
    } catch (error) {
      if (!HttpError.isInstance(error)) throw error;
      throw new HttpError(400, error.message, { fields: { success: false, code: 'invalid_request' } });
    }
  };

  const checkDuration = (seconds: number) => {
    if (seconds > limits.maxVideoDurationSeconds) {
      throw new HttpError(
        413,
        `video too long: ${Math.round(seconds)} s; the limit is ${limits.maxVideoDurationSeconds} s`,
        {
          fields: { success: false, code: 'video_too_long' },
        },
      );
    }
  };

  async function startFromUpload(request: RequestContext): Promise<SandboxResponse> {
    const caller = admit(request);
    const declared = Number(request.request.headers['content-length']);
    const tooLarge = () =>
      new HttpError(413, `upload too large: the limit is ${limits.maxUploadBytes} bytes`, {
        headers: { connection: 'close' },
        fields: { success: false, code: 'file_too_large' },
      });
    if (Number.isFinite(declared) && declared > limits.maxUploadBytes + MULTIPART_SLACK_BYTES)
      throw tooLarge();
    const filePath = path.join(context.dataDir, `vf_upload_${randomBytes(9).toString('hex')}`);
    const form = await receiveForm({
      request: request.request,
      fileField: 'video_file',
      filePath,
      maxBytes: limits.maxUploadBytes,
    });
    let kept = false;
    try {
      if (form.tooLarge) throw tooLarge();
      const fields = Object.fromEntries(form.fields);
      rejectUnknown(fields, OPTION_FIELDS);
      const options = parseFlashcardOptions(fields, true);
      const file = form.file;
      if (!file) {
        throw new HttpError(
          400,
          'video_file is required: send the video in the multipart field "video_file"',
          {
            fields: { success: false, code: 'invalid_request' },
          },
        );
      }
      const extension = path.extname(file.filename ?? '').toLowerCase();
      const container = sniffVideoContainer(file.head);
      if (!VIDEO_EXTENSIONS.includes(extension) && !container) {
        throw new HttpError(
          400,
          'unsupported video format: upload MP4, MOV, MKV, WEBM, M4V, AVI, MPEG or MPG',
          {
            fields: { success: false, code: 'unsupported_format' },
          },
        );
      }
      let duration: number | undefined;
      try {
        duration = (await parseFile(file.path, { skipCovers: true, duration: true })).format.duration;
      } catch {
        // Unreadable container: estimated below.
      }
      const durationSeconds =
        duration && Number.isFinite(duration) && duration > 0
          ? duration
          : Math.max(1, file.size / ESTIMATE_BYTES_PER_SECOND);
      checkDuration(durationSeconds);
      const name = file.filename ?? 'video.mp4';
      const answer = create(caller, options, {
        kind: 'upload',
        fingerprint: `upload:${file.sha256}`,
        title: path.basename(name, path.extname(name)) || 'Untitled video',
        durationSeconds: Math.round(durationSeconds * 1000) / 1000,
        sourceUrl: null,
        file: { path: file.path, size: file.size, name: path.basename(name) },
        marker: name,
      });
      kept = answer.status === 202;
      return answer;
    } finally {
      if (!kept) await rm(filePath, { force: true });
    }
  }

  async function startFromUrl(request: RequestContext): Promise<SandboxResponse> {
    const caller = admit(request);
    const body = await readObject(request);
    rejectUnknown(body, ['url', 'source_type', ...OPTION_FIELDS]);
    const options = parseFlashcardOptions(body, false);
    const sourceType = body.source_type ?? 'youtube';
    if (sourceType !== 'youtube' && sourceType !== 'direct_video_url') {
      throw new HttpError(400, 'source_type must be youtube or direct_video_url', {
        fields: { success: false, code: 'invalid_request' },
      });
    }
    if (typeof body.url !== 'string' || body.url.trim() === '') {
      throw new HttpError(400, 'url is required', { fields: { success: false, code: 'invalid_request' } });
    }
    const url = body.url.trim();
    const publicMedia = config.media.publicMedia;
    let source: Source;
    if (sourceType === 'youtube') {
      const id = youtubeVideoId(url);
      if (!id) {
        throw new HttpError(400, 'url is not a YouTube watch, Shorts or youtu.be link', {
          fields: { success: false, code: 'invalid_url' },
        });
      }
      const entry = publicMedia[url];
      // The sandbox does not reach YouTube: title and length are derived from the video id (or configured).
      const hash = createHash('sha256').update(id).digest().readUInt16LE(0);
      source = {
        kind: 'youtube',
        fingerprint: `youtube:${id}`,
        title: entry?.title ?? `YouTube video ${id}`,
        durationSeconds: entry?.durationSeconds ?? 30 + (hash % 150),
        sourceUrl: url,
        file: undefined,
        marker: url,
      };
    } else {
      let entry: ReturnType<typeof lookUpRemote>;
      try {
        entry = lookUpRemote(url, 'url', publicMedia);
      } catch (error) {
        if (HttpError.isInstance(error)) {
          throw new HttpError(error.status, error.message, {
            fields: { success: false, code: 'unsafe_url' },
          });
        }
        throw error;
      }
      const bytes =
        entry.base64 !== undefined
          ? Buffer.from(entry.base64, 'base64')
          : entry.fixture === 'mp4'
            ? sampleVideo()
            : undefined;
      if (!bytes || !sniffVideoContainer(bytes)) {
        throw new HttpError(400, 'url is not a video file (checked by its content)', {
          fields: { success: false, code: 'unsupported_format' },
        });
      }
      if ((entry.sizeBytes ?? bytes.length) > limits.maxUploadBytes) {
        throw new HttpError(413, `video too large: the limit is ${limits.maxUploadBytes} bytes`, {
          fields: { success: false, code: 'file_too_large' },
        });
      }
      let duration = entry.durationSeconds;
      if (duration === undefined) {
        duration =
          entry.fixture === 'mp4'
            ? SAMPLE_VIDEO_SECONDS
            : await parseBuffer(bytes)
                .then((metadata) => metadata.format.duration)
                .catch(() => undefined);
      }
      const fileName = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '') || 'video';
      source = {
        kind: 'direct_video_url',
        fingerprint: `url:${url}`,
        title: entry.title ?? path.basename(fileName, path.extname(fileName)),
        durationSeconds: duration ?? Math.max(1, bytes.length / ESTIMATE_BYTES_PER_SECOND),
        sourceUrl: url,
        file: undefined,
        marker: url,
      };
    }
    checkDuration(source.durationSeconds);
    return create(caller, options, source);
  }

  const resultOf = (job: FlashcardJob, request: RequestContext) => {
    const { options, source } = job;
    job.material ??= buildFlashcards({
      fingerprint: source.fingerprint,
      durationSeconds: source.durationSeconds,
      source: options.sourceLanguage,
      target: options.targetLanguage,
      maxWordsPerSegment: options.maxWordsPerSegment,
    });
    if (!job.urls) {
      const clip = (kind: string, index: number) =>
        files.add({
          name: `${job.id}-${kind}-${index}.mp4`,
          contentType: 'video/mp4',
          body: { bytes: sampleVideo },
        });
      job.urls = {
        original: source.file
          ? files.add({
              name: source.file.name,
              contentType: 'video/mp4',
              body: { path: source.file.path, size: source.file.size },
            })
          : null,
        clips: job.material.segments.map((segment) => ({
          original: options.includeOriginalSegments ? clip('original', segment.index) : null,
          rendered: options.includeRenderedSegments ? clip('rendered', segment.index) : null,
        })),
      };
    }
    const urls = job.urls;
    const absolute = (relative: string | null) => (relative ? absoluteUrl(request, relative) : null);
    return {
      learning_direction: options.learningDirection,
      source_language: options.sourceLanguage,
      target_language: options.targetLanguage,
      media: {
        title: source.title,
        duration: source.durationSeconds,
        source_url: source.sourceUrl,
        original_video_url: absolute(urls.original),
      },
      transcript: job.material.transcript,
      segments: job.material.segments.map((segment, index) => ({
        ...segment,
        video: {
          original_segment_url: absolute(urls.clips[index]!.original),
          rendered_segment_url: absolute(urls.clips[index]!.rendered),
          content_type: 'video/mp4',
          has_word_cards: urls.clips[index]!.rendered !== null,
        },
      })),
    };
  };

  function getJob(request: RequestContext): SandboxResponse {
    const caller = admit(request);
    const job = jobs.get(request.params.jobId!);
    if (!job || job.userId !== caller.user.id) {
      throw new HttpError(404, `job ${request.params.jobId} not found or not accessible with this key`, {
        fields: { code: 'not_found' },
      });
    }
    const position = timelinePosition(job.createdAt, job.phases, clock.now());
    const media = { title: job.source.title, duration: job.source.durationSeconds };
    if (!position.done) {
      const stage = position.phase!;
      return json(200, {
        job_id: job.id,
        status: stage === 'queued' ? 'queued' : 'processing',
        ready: false,
        successful: null,
        progress: {
          percent: stage === 'queued' ? 0 : Math.max(1, Math.min(99, Math.floor(position.fraction * 100))),
          stage,
          message: STAGE_MESSAGES[stage],
        },
        media,
      });
    }
    if (job.outcome === 'done') {
      return json(200, {
        job_id: job.id,
        status: 'done',
        ready: true,
        successful: true,
        progress: { percent: 100, stage: 'done', message: STAGE_MESSAGES.done },
        media,
        result: resultOf(job, request),
      });
    }
    const error =
      job.outcome === 'failed'
        ? {
            code: 'processing_failed',
            message: 'speech recognition failed: no usable speech was found in the video',
          }
        : { code: 'cancelled', message: 'the job was cancelled before it finished' };
    return json(200, {
      job_id: job.id,
      status: job.outcome,
      ready: true,
      successful: false,
      progress: { percent: 40, stage: job.outcome, message: STAGE_MESSAGES[job.outcome] },
      media,
      error,
    });
  }

  const removeAll = async () => {
    const paths = [...jobs.values()].flatMap((job) => (job.source.file ? [job.source.file.path] : []));
    jobs = new Map();
    idempotency = new Map();
    rate.clear();
    files.clear();
    await Promise.all(paths.map((file) => rm(file, { force: true })));
  };

  return {
    name: 'flashcards',
    register(router: Router) {
      router.route('POST', `${FLASHCARDS_API_PATH}/jobs`, startFromUpload);
      router.route('POST', `${FLASHCARDS_API_PATH}/jobs/from-url`, startFromUrl);
      router.route('GET', `${FLASHCARDS_API_PATH}/jobs/:jobId`, getJob);
      files.register(router);
    },
    settle() {
      // State is computed from the clock on every look.
    },
    reset: removeAll,
    close: removeAll,
  };
}
