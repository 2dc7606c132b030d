/**
 * What the two video services share: reading a job, waiting for it, starting one at most once (ledger),
 * and the request checks of media references.
 */
import { jobErrorText, VIDEO_TERMINAL_STATES, VideoJob } from '../contracts/video.js';
import { ApiError, JobFailedError, ValidationError } from '../errors/index.js';
import type { HttpClient } from '../http/index.js';
import { assertPublicHttpUrl } from '../net/assert-public-http-url.js';
import { pollUntil } from '../polling/index.js';

export const VIDEO_POLL_INTERVAL_MS = 3_000;
export const VIDEO_WAIT_TIMEOUT_MS = 30 * 60 * 1000;

export interface VideoWaitOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  intervalMs?: number;
  onProgress?: (job: VideoJob) => void;
}

export function isVideoJobDone(job: VideoJob): boolean {
  return VIDEO_TERMINAL_STATES.includes(job.status);
}

/** A percentage from the best-effort progress object, when it carries one. */
export function videoProgressPercent(job: VideoJob): number | undefined {
  if (job.status === 'done') return 100;
  const percent = job.progress?.percent;
  return typeof percent === 'number' && Number.isFinite(percent) ? percent : undefined;
}

const JOB_ID = /^[A-Za-z0-9_.:-]{1,200}$/;

export function checkJobId(id: string, field = 'jobId'): string {
  if (!JOB_ID.test(id)) {
    throw new ValidationError(`${field} ${JSON.stringify(id)} is not a job id of this service.`, [
      { path: field, message: 'invalid id' },
    ]);
  }
  return id;
}

export function createVideoJobReader(options: {
  http: HttpClient;
  apiPath: string;
  service: string;
  pollIntervalMs?: number;
}) {
  const { http, apiPath, service } = options;
  async function get(requestId: string, request: { signal?: AbortSignal } = {}): Promise<VideoJob> {
    const response = await http.request({
      method: 'GET',
      path: `${apiPath}/videos/${encodeURIComponent(checkJobId(requestId, 'requestId'))}`,
      schema: VideoJob,
      idempotent: true,
      ...(request.signal ? { signal: request.signal } : {}),
    });
    return response.data;
  }
  /** Polls until the job stops; `failed`/`canceled` → JobFailedError. */
  async function wait(requestId: string, request: VideoWaitOptions = {}): Promise<VideoJob> {
    const job = await pollUntil({
      retrieve: (signal) => get(requestId, { signal }),
      isDone: isVideoJobDone,
      intervalMs: request.intervalMs ?? options.pollIntervalMs ?? VIDEO_POLL_INTERVAL_MS,
      timeoutMs: request.timeoutMs ?? VIDEO_WAIT_TIMEOUT_MS,
      service,
      jobId: requestId,
      ...(request.signal ? { signal: request.signal } : {}),
      ...(request.onProgress ? { onProgress: request.onProgress } : {}),
    });
    if (job.status !== 'done' || !job.video?.url) {
      throw new JobFailedError({
        service,
        jobId: requestId,
        status: job.status,
        errorMessage:
          jobErrorText(job.error) ?? (job.status === 'done' ? 'no video URL in the result' : null),
      });
    }
    return job;
  }
  /** The live status of a job, or undefined when the service no longer knows it (404). */
  async function currentStatus(requestId: string, signal?: AbortSignal): Promise<string | undefined> {
    try {
      return (await get(requestId, signal ? { signal } : {})).status;
    } catch (error) {
      if (ApiError.isInstance(error) && error.status === 404) return undefined;
      throw error;
    }
  }
  return { get, wait, currentStatus };
}

/**
 * A media reference for the services to fetch: a data URL or `/uploads/...` path passes; an http(s) URL
 * must name a public host (the services refuse private hosts too, but nothing is sent when it is local).
 */
export function checkMediaReference(url: string, field: string): string {
  if (url.startsWith('data:')) return url;
  if (url.startsWith('/uploads/')) {
    if (url.includes('..')) {
      throw new ValidationError(`${field}: "..", is not allowed in an /uploads/ path. Nothing was sent.`, [
        { path: field, message: 'invalid path' },
      ]);
    }
    return url;
  }
  assertPublicHttpUrl(url, { field });
  return url;
}
