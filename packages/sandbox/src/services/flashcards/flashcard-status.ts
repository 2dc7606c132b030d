/**
 * `GET /jobs/{jobId}`: a job's status read off the clock — stage and percent while it runs, then the
 * flashcards (transcript, segments, absolute clip URLs) or the error. The material and the clip URLs are
 * made on the first look at a finished job and kept, so every later look answers the same.
 */
import { HttpError } from '../../framework/http-error.js';
import type { RequestContext } from '../../framework/request-context.js';
import { json, type SandboxResponse } from '../../framework/sandbox-response.js';
import { timelinePosition } from '../../media/job-timeline.js';
import { absoluteUrl, type MediaFiles } from '../../media/media-files.js';
import { sampleVideo } from '../../media/media-fixtures.js';
import { buildFlashcards, type FlashcardMaterial } from './build-flashcards.js';
import { type FlashcardJob, STAGE_MESSAGES } from './flashcard-job.js';
import { admit, type FlashcardsState } from './flashcards-state.js';

function materialOf(job: FlashcardJob): FlashcardMaterial {
  const { options, source } = job;
  job.material ??= buildFlashcards({
    fingerprint: source.fingerprint,
    durationSeconds: source.durationSeconds,
    source: options.sourceLanguage,
    target: options.targetLanguage,
    maxWordsPerSegment: options.maxWordsPerSegment,
  });
  return job.material;
}

/** Site-relative URLs of the original video and of each segment's clips the options ask for. */
function urlsOf(files: MediaFiles, job: FlashcardJob, material: FlashcardMaterial) {
  if (job.urls) return job.urls;
  const { options, source } = job;
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
    clips: material.segments.map((segment) => ({
      original: options.includeOriginalSegments ? clip('original', segment.index) : null,
      rendered: options.includeRenderedSegments ? clip('rendered', segment.index) : null,
    })),
  };
  return job.urls;
}

function resultOf(files: MediaFiles, job: FlashcardJob, request: RequestContext) {
  const { options, source } = job;
  const material = materialOf(job);
  const urls = urlsOf(files, job, material);
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
    transcript: material.transcript,
    segments: material.segments.map((segment, index) => ({
      ...segment,
      video: {
        original_segment_url: absolute(urls.clips[index]!.original),
        rendered_segment_url: absolute(urls.clips[index]!.rendered),
        content_type: 'video/mp4',
        has_word_cards: urls.clips[index]!.rendered !== null,
      },
    })),
  };
}

/** A failed or cancelled job's error, which it reports at the stage where it stopped. */
function errorOf(job: FlashcardJob) {
  return job.outcome === 'failed'
    ? {
        code: 'processing_failed',
        message: 'speech recognition failed: no usable speech was found in the video',
      }
    : { code: 'cancelled', message: 'the job was cancelled before it finished' };
}

export function getJob(state: FlashcardsState, request: RequestContext): SandboxResponse {
  const caller = admit(state, request);
  const job = state.jobs.get(request.params.jobId!);
  if (!job || job.userId !== caller.user.id) {
    throw new HttpError(404, `job ${request.params.jobId} not found or not accessible with this key`, {
      fields: { code: 'not_found' },
    });
  }
  const position = timelinePosition(job.createdAt, job.phases, state.clock.now());
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
      result: resultOf(state.files, job, request),
    });
  }
  return json(200, {
    job_id: job.id,
    status: job.outcome,
    ready: true,
    successful: false,
    progress: { percent: 40, stage: job.outcome, message: STAGE_MESSAGES[job.outcome] },
    media,
    error: errorOf(job),
  });
}
