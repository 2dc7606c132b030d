/**
 * What every operation of the meeting client works with, in one object built once per client: the HTTP
 * chokepoint, the job engine, the file policy, the meeting job resource (reads recorded by the engine, 5 s
 * apart) and the service's upload limit as the job list last reported it.
 */
import type { z } from 'zod';
import { MEETING_API_PATH, MEETING_SERVICE } from '../constants/service-table.js';
import { type MeetingJob, MeetingJobEnvelope } from '../contracts/meeting.js';
import { describeIssues, listIssues } from '../errors/describe-issues.js';
import { ValidationError } from '../errors/polymodal-error.js';
import type { FileAccess } from '../files/create-file-access.js';
import { requestOptionsOf } from '../http/call-options.js';
import type { HttpClient } from '../http/http-client.js';
import type { JobEngine } from '../jobs/job-engine.js';
import { defineJobResource } from '../jobs/job-resource.js';
import type { LedgerPatch } from '../ledger/create-job-ledger.js';
import { MEETING_JOB } from '../views/meeting-job.js';
import type { MeetingCallOptions } from './meeting-types.js';

/** The reference client gives up waiting after 4 hours (the job keeps running). */
export const MEETING_WAIT_TIMEOUT_MS = 4 * 60 * 60 * 1000;

export interface MeetingDeps {
  http: HttpClient;
  engine: JobEngine;
  files: FileAccess | undefined;
  jobs: MeetingJobs;
  /** The service's `maxUploadBytes` and when it was read; set by every job list. */
  uploadLimit: { maxUploadBytes: number | undefined; readAt: number } | undefined;
}

export type MeetingJobs = ReturnType<typeof defineMeetingJobs>;

/** Meeting jobs: one GET of the job, every answer (and Retry-After) recorded by the engine, 5 s apart. */
export function defineMeetingJobs(options: {
  http: HttpClient;
  engine: JobEngine;
  pollIntervalMs: number | undefined;
}) {
  const { http } = options;
  return defineJobResource<MeetingJob>({
    service: MEETING_SERVICE,
    kind: MEETING_JOB,
    engine: options.engine,
    intervalMs: options.pollIntervalMs,
    waitTimeoutMs: MEETING_WAIT_TIMEOUT_MS,
    locate: (id) => ({ id, path: meetingJobPath(id) }),
    fetch: async (path, call: MeetingCallOptions) => {
      const response = await http.request({
        method: 'GET',
        path,
        schema: MeetingJobEnvelope,
        idempotent: true,
        ...meetingRequestOptions(call),
      });
      return { ...response, data: response.data.job };
    },
    observed: ({ data: job }, id) => ({ patch: recordedFields(id, job) }),
  });
}

/** The per-call options every meeting request passes to the chokepoint. */
export function meetingRequestOptions(call: MeetingCallOptions) {
  return {
    ...requestOptionsOf(call),
    ...(call.timeoutMs === undefined ? {} : { timeoutMs: call.timeoutMs }),
  };
}

/** The path of a job; an id that cannot be one (empty, a path, control characters) is refused unsent. */
export function meetingJobPath(id: string): string {
  if (
    typeof id !== 'string' ||
    id.trim() === '' ||
    id.includes('/') ||
    id === '.' ||
    id === '..' ||
    /[\u0000-\u001f]/.test(id)
  ) {
    throw new ValidationError(
      `Invalid meeting job id ${JSON.stringify(id)}: use the id returned when the job was created.`,
      [{ path: 'id', message: 'invalid id' }],
    );
  }
  return `${MEETING_API_PATH}/jobs/${encodeURIComponent(id)}`;
}

export function meetingValidationError(what: string, error: z.ZodError, input: unknown): ValidationError {
  const issues = describeIssues(error, input);
  return new ValidationError(
    `Invalid ${what}: ${listIssues(issues)}. Fix these fields; nothing was sent.`,
    issues,
  );
}

/**
 * What a read of the job leaves in its ledger entry besides the status: its title, and the credits the
 * platform reports for it (tagged with the job id, because an entry started anew keeps its old `data`
 * until the new job is read), so that spending can be told from the ledger without asking the platform.
 */
function recordedFields(id: string, job: MeetingJob): LedgerPatch {
  return {
    ...(job.title ? { title: job.title } : {}),
    ...(typeof job.credits === 'number'
      ? { data: { jobId: id, credits: job.credits, creditsCharged: job.creditsCharged } }
      : {}),
  };
}
