/**
 * What the two video services share: reading a job, waiting for it and starting one at most once (both
 * on the job engine), and the request checks of media references.
 */

import { VideoJob } from '../contracts/video.js';
import { jobErrorText } from '../errors/job-error-text.js';
import { ValidationError } from '../errors/polymodal-error.js';
import { type CallOptions, requestOptionsOf, startCall } from '../http/call-options.js';
import type { HttpClient } from '../http/http-client.js';
import { createJobEngine } from '../jobs/create-job-engine.js';
import type { JobEngine, StartedJob } from '../jobs/job-engine.js';
import { defineJobResource } from '../jobs/job-resource.js';
import { fingerprint } from '../ledger/fingerprint.js';
import { assertPublicHttpUrl } from '../net/assert-public-http-url.js';
import { VIDEO_JOB } from '../views/video-job.js';

export const VIDEO_WAIT_TIMEOUT_MS = 30 * 60 * 1000;

const JOB_ID = /^[A-Za-z0-9_.:-]{1,200}$/;

export function checkJobId(id: string, field = 'jobId'): string {
  if (!JOB_ID.test(id)) {
    throw new ValidationError(`${field} ${JSON.stringify(id)} is not a job id of this service.`, [
      { path: field, message: 'invalid id' },
    ]);
  }
  return id;
}

/** `timeout` bounds the whole submission like `deadline`; `maxRetries` applies to the catalog read and the start. */
export interface VideoSubmitOptions extends CallOptions {
  /** When the call must be over (epoch ms): the catalog read and a wait on an identical start end by it. */
  deadline?: number;
  /**
   * The file name the finished video is to be saved under. Kept with the job in the ledger, so that a
   * later wait (after a cut download, a restart, another call) saves it under the same name.
   */
  saveAs?: string | undefined;
  /** Start a new job even if this installation already made the same request (a new variation). */
  forceNew?: boolean;
  /** Send again although an identical earlier request was cut off and may already have created a job. */
  allowResubmit?: boolean;
}

/** Whether a recorded video job with this status may be returned for an identical request. */
export function isReusableVideoStatus(status: string): boolean {
  return !['failed', 'canceled', 'cancelled'].includes(status);
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

/** Reading, waiting for and starting (at most once, through the job engine) the jobs of one video service. */
export function createVideoJobClient(options: {
  http: HttpClient;
  apiPath: string;
  service: string;
  engine?: JobEngine | undefined;
  /** Minimum time between two reads of a job (default 3 s). */
  pollIntervalMs?: number;
}) {
  const { http, apiPath, service } = options;
  const engine = options.engine ?? createJobEngine();
  const jobs = defineJobResource<VideoJob>({
    service,
    kind: VIDEO_JOB,
    engine,
    intervalMs: options.pollIntervalMs,
    waitTimeoutMs: VIDEO_WAIT_TIMEOUT_MS,
    locate: (requestId) => ({
      id: requestId,
      path: `${apiPath}/videos/${encodeURIComponent(checkJobId(requestId, 'requestId'))}`,
    }),
    fetch: (path, call) =>
      http.request({ method: 'GET', path, schema: VideoJob, idempotent: true, ...requestOptionsOf(call) }),
    // `failed`/`canceled`, or done without a video to fetch → JobFailedError.
    failure: (job) =>
      job.status === 'done' && job.video?.url
        ? undefined
        : {
            errorMessage:
              jobErrorText(job.error) ?? (job.status === 'done' ? 'no video URL in the result' : null),
          },
  });

  /**
   * POSTs a validated request to `<apiPath>/videos/generations` once: an identical request in flight is
   * joined, an identical earlier request of this installation is resumed. Repeated only when it provably
   * never arrived or after an explicit 429.
   */
  async function start(
    body: Record<string, unknown>,
    title: string,
    options: VideoSubmitOptions,
  ): Promise<StartedJob> {
    const extra = startCall(options);
    return engine.start({
      service,
      fingerprint: fingerprint({ service, body }),
      title,
      request: { ...describeRequest(body), ...(extra.saveAs ? { saveAs: extra.saveAs } : {}) },
      signal: extra.signal,
      deadline: extra.deadline,
      reusable: isReusableVideoStatus,
      forceNew: extra.forceNew,
      allowResubmit: extra.allowResubmit,
      resubmitOption: 'allowResubmit',
      current: jobs.currentStatus,
      submit: async ({ signal }) => {
        const response = await http.request({
          method: 'POST',
          path: `${apiPath}/videos/generations`,
          json: body,
          schema: VideoJob,
          idempotent: false,
          signal,
          maxRetries: extra.maxRetries,
        });
        await engine.noteRead(service, response.data.request_id, {
          status: response.data.status,
          body: response.data,
        });
        return { id: response.data.request_id, status: response.data.status };
      },
    });
  }
  return { retrieve: jobs.retrieve, poll: jobs.poll, wait: jobs.wait, start };
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
