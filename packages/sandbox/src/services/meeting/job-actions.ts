/**
 * What a caller can do to an existing job: the actions of `POST /jobs/{id}` (cancel, retry, resummarize,
 * retranslate), each allowed only in the states the platform allows it in; renaming speakers and the title
 * (`PATCH`); and deleting a stopped job with its recording (`DELETE`).
 */
import { rm } from 'node:fs/promises';
import { HttpError } from '../../framework/http-error.js';
import type { RequestContext } from '../../framework/request-context.js';
import { json, type SandboxResponse } from '../../framework/sandbox-response.js';
import { ActionBody, parseBody, UpdateBody } from './job-requests.js';
import { startRun } from './job-runs.js';
import { type JobMoment, NO_ARTIFACTS } from './job-timeline.js';
import { jobView } from './job-view.js';
import {
  authenticate,
  findJob,
  type JobRecord,
  type MeetingServiceState,
  moment,
} from './meeting-service-state.js';

interface ActionTarget {
  job: JobRecord;
  current: JobMoment;
  running: boolean;
}

function cancel({ job, current, running }: ActionTarget): void {
  if (!running)
    throw new HttpError(409, `cannot cancel: the job is ${current.status} (processing has stopped)`);
  job.run = undefined;
  job.stopped = {
    status: 'CANCELLED',
    progress: current.progress,
    artifacts: current.artifacts,
    errorMessage: null,
  };
}

function retry(state: MeetingServiceState, { job, current, running }: ActionTarget): void {
  if (running || (current.status !== 'FAILED' && current.status !== 'CANCELLED')) {
    throw new HttpError(
      409,
      `cannot retry: the job is ${current.status}; only FAILED or CANCELLED jobs can be retried`,
    );
  }
  startRun(state, job, { kind: 'process', base: NO_ARTIFACTS });
}

/** Resummarize or retranslate: only a stopped job with a non-empty transcript. */
function redo(state: MeetingServiceState, body: ActionBody, { job, current, running }: ActionTarget): void {
  if (running)
    throw new HttpError(409, `cannot ${body.action}: the job is still processing (${current.status})`);
  if (!current.artifacts.transcript || job.transcript.length === 0) {
    throw new HttpError(409, `cannot ${body.action}: the job has no valid transcript`);
  }
  if (body.action === 'resummarize') {
    startRun(state, job, { kind: 'resummarize', base: { ...current.artifacts, summary: false } });
  } else {
    job.targetLanguage = body.targetLanguage!;
    startRun(state, job, { kind: 'retranslate', base: { ...current.artifacts, translation: false } });
  }
}

export async function actOnJob(
  state: MeetingServiceState,
  request: RequestContext,
): Promise<SandboxResponse> {
  const principal = authenticate(state, request);
  const body = parseBody(ActionBody, await request.readJson());
  const job = findJob(state, principal, request.params.id!);
  const target: ActionTarget = { job, current: moment(state, job), running: job.run !== undefined };
  switch (body.action) {
    case 'cancel':
      cancel(target);
      break;
    case 'retry':
      retry(state, target);
      break;
    case 'resummarize':
    case 'retranslate':
      redo(state, body, target);
      break;
  }
  return json(200, { success: true });
}

/** Speaker names may be set only once the transcript exists, and only for speakers it has. */
function renameSpeakers(state: MeetingServiceState, job: JobRecord, names: Record<string, string>): void {
  if (!moment(state, job).artifacts.transcript) {
    throw new HttpError(409, 'cannot rename speakers: the transcript does not exist yet');
  }
  const known = new Set(job.transcript.map((segment) => segment.speakerId));
  const unknown = Object.keys(names).filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new HttpError(
      409,
      `cannot rename speakers: ${unknown.join(', ')} not in the transcript (speakers: ${[...known].join(', ') || 'none'})`,
    );
  }
  Object.assign(job.speakerNames, names);
}

export async function updateJob(
  state: MeetingServiceState,
  request: RequestContext,
): Promise<SandboxResponse> {
  const principal = authenticate(state, request);
  const body = parseBody(UpdateBody, await request.readJson());
  const job = findJob(state, principal, request.params.id!);
  if (body.speakerNames !== undefined) renameSpeakers(state, job, body.speakerNames);
  if (body.title !== undefined) job.title = body.title;
  return json(200, { job: jobView(state, job) });
}

export async function deleteJob(
  state: MeetingServiceState,
  request: RequestContext,
): Promise<SandboxResponse> {
  const principal = authenticate(state, request);
  const job = findJob(state, principal, request.params.id!);
  const current = moment(state, job);
  if (job.run) {
    throw new HttpError(
      409,
      `cannot delete: the job is ${current.status}; cancel it first or wait until it stops`,
    );
  }
  state.jobs.delete(job.id);
  state.uploads.delete(job.upload.id);
  await rm(job.upload.filePath, { force: true });
  return json(200, { success: true });
}
