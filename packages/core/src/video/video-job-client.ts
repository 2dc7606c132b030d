/**
 * What the two video services share: reading a job, waiting for it, starting one at most once (ledger),
 * and the request checks of media references.
 */
import { jobErrorText, VIDEO_TERMINAL_STATES, VideoJob } from '../contracts/video.js';
import { JobFailedError, ValidationError } from '../errors/index.js';
import type { HttpClient } from '../http/index.js';
import {
  fingerprint,
  type JobLedger,
  type LedgerEntry,
  type StartedJob,
  startJobOnce,
  statusUnlessGone,
} from '../ledger/index.js';
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

export interface VideoSubmitOptions {
  signal?: AbortSignal;
  /** Start a new job even if this installation already made the same request (a new variation). */
  forceNew?: boolean;
  /** Send again although an identical earlier request was cut off and may already have created a job. */
  allowResubmit?: boolean;
}

/** Whether a recorded video job may be returned for an identical request. */
export function isReusableVideoEntry(entry: LedgerEntry): boolean {
  return !['failed', 'canceled', 'cancelled'].includes(entry.lastStatus);
}

/** What the ledger keeps of a video request: no data URLs (they can be megabytes). */
export function describeRequest(body: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(body, (_key, value) =>
      typeof value === 'string' && value.startsWith('data:')
        ? `${value.slice(0, value.indexOf(',') + 1)}…`
        : value,
    ),
  ) as Record<string, unknown>;
}

/** Reading, waiting for and starting (at most once, through the ledger) the jobs of one video service. */
export function createVideoJobClient(options: {
  http: HttpClient;
  apiPath: string;
  service: string;
  ledger?: JobLedger | undefined;
  pollIntervalMs?: number;
}) {
  const { http, apiPath, service, ledger } = options;
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
  /**
   * POSTs a validated request to `<apiPath>/videos/generations` once: an identical earlier request of this
   * installation is resumed instead. Repeated only when it provably never arrived or after an explicit 429.
   */
  async function start(
    body: Record<string, unknown>,
    title: string,
    extra: VideoSubmitOptions,
  ): Promise<StartedJob> {
    return startJobOnce({
      ledger,
      service,
      fingerprint: fingerprint({ service, body }),
      title,
      request: describeRequest(body),
      reuse: isReusableVideoEntry,
      ...(extra.forceNew ? { forceNew: true } : {}),
      ...(extra.allowResubmit ? { allowResubmit: true } : {}),
      resubmitOption: 'allowResubmit',
      current: (id) =>
        statusUnlessGone(async () => (await get(id, extra.signal ? { signal: extra.signal } : {})).status),
      start: async () => {
        const response = await http.request({
          method: 'POST',
          path: `${apiPath}/videos/generations`,
          json: body,
          schema: VideoJob,
          idempotent: false,
          ...(extra.signal ? { signal: extra.signal } : {}),
        });
        return { id: response.data.request_id, status: response.data.status };
      },
    });
  }
  return { get, wait, start };
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
