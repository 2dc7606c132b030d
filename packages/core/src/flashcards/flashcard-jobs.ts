/**
 * Flashcard jobs as a job resource, read every 3 s. Clip and video URLs in a result are resolved against
 * the platform's base URL (the service may answer with paths), so an agent gets addresses it can open;
 * they are downloaded without credentials.
 */
import { FLASHCARDS_API_PATH, FLASHCARDS_SERVICE } from '../constants/service-table.js';
import { FlashcardJob } from '../contracts/flashcards.js';
import { jobErrorText } from '../errors/job-error-text.js';
import { requestOptionsOf } from '../http/call-options.js';
import type { HttpClient } from '../http/http-client.js';
import type { JobEngine } from '../jobs/job-engine.js';
import { defineJobResource } from '../jobs/job-resource.js';
import { checkJobId } from '../video/video-job-client.js';
import { FLASHCARDS_JOB } from '../views/flashcards-job.js';

export const FLASHCARDS_WAIT_TIMEOUT_MS = 60 * 60 * 1000;

export type FlashcardJobs = ReturnType<typeof defineFlashcardJobs>;

export function defineFlashcardJobs(options: {
  http: HttpClient;
  engine: JobEngine;
  pollIntervalMs: number | undefined;
}) {
  const { http } = options;
  return defineJobResource<FlashcardJob>({
    service: FLASHCARDS_SERVICE,
    kind: FLASHCARDS_JOB,
    engine: options.engine,
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
