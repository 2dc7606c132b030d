/**
 * The meeting endpoints one-to-one: list, create, the job actions (cancel, retry, resummarize, retranslate),
 * update and delete. Every call that changes a job forgets what was read of it before, so that the next
 * read asks the service again.
 */
import { z } from 'zod';
import { MeetingLanguage } from '../constants/meeting-constants.js';
import { MEETING_API_PATH, MEETING_SERVICE } from '../constants/service-table.js';
import {
  CreateJobResponse,
  CreateMeetingJobRequest,
  type MeetingAction,
  type MeetingJob,
  MeetingJobEnvelope,
  MeetingJobList,
  SuccessResponse,
  UpdateMeetingRequest,
} from '../contracts/meeting.js';
import { NotFoundError } from '../errors/api-error.js';
import {
  type MeetingDeps,
  meetingJobPath,
  meetingRequestOptions,
  meetingValidationError,
} from './meeting-deps.js';
import type { CreateResult, MeetingCallOptions, MeetingChanges } from './meeting-types.js';

const RetranslateRequest = z.strictObject({ targetLanguage: MeetingLanguage });

/** The account's jobs; remembers the upload limit the list reports. */
export async function listJobs(deps: MeetingDeps, call: MeetingCallOptions = {}): Promise<MeetingJobList> {
  const response = await deps.http.request({
    method: 'GET',
    path: `${MEETING_API_PATH}/jobs`,
    schema: MeetingJobList,
    idempotent: true,
    ...meetingRequestOptions(call),
  });
  deps.uploadLimit = { maxUploadBytes: response.data.maxUploadBytes ?? undefined, readAt: Date.now() };
  return response.data;
}

export async function createJob(
  deps: MeetingDeps,
  request: CreateMeetingJobRequest,
  call: MeetingCallOptions = {},
): Promise<CreateResult> {
  const parsed = CreateMeetingJobRequest.safeParse(request);
  if (!parsed.success) throw meetingValidationError('meeting job request', parsed.error, request);
  const response = await deps.http.request({
    method: 'POST',
    path: `${MEETING_API_PATH}/jobs`,
    json: parsed.data,
    schema: CreateJobResponse,
    // Safe to repeat: the same receipt yields the existing job (HTTP 200) instead of a second one.
    idempotent: true,
    ...meetingRequestOptions(call),
  });
  return { id: response.data.id, created: response.status === 201 };
}

/** One of the job actions (`POST /jobs/<id>` with `action`). */
export async function actOnJob(
  deps: MeetingDeps,
  options: { id: string; action: MeetingAction; fields?: Record<string, unknown>; call: MeetingCallOptions },
): Promise<SuccessResponse> {
  const { id, call } = options;
  const response = await deps.http.request({
    method: 'POST',
    path: meetingJobPath(id),
    json: { action: options.action, ...options.fields },
    schema: SuccessResponse,
    // Actions start paid or destructive work; repeated only when the server provably did not act.
    idempotent: false,
    ...meetingRequestOptions(call),
  });
  // The job changed: what was read before the action no longer describes it.
  deps.engine.invalidate(MEETING_SERVICE, id);
  return response.data;
}

export async function retranslateJob(
  deps: MeetingDeps,
  id: string,
  request: { targetLanguage: MeetingLanguage; signal?: AbortSignal },
  call: MeetingCallOptions = {},
): Promise<SuccessResponse> {
  const retranslate = { targetLanguage: request?.targetLanguage };
  const parsed = RetranslateRequest.safeParse(retranslate);
  if (!parsed.success) throw meetingValidationError('retranslate request', parsed.error, retranslate);
  return actOnJob(deps, {
    id,
    action: 'retranslate',
    fields: parsed.data,
    call: { signal: call.signal ?? request.signal },
  });
}

export async function updateJob(
  deps: MeetingDeps,
  id: string,
  changes: MeetingChanges,
  call: MeetingCallOptions = {},
): Promise<MeetingJob> {
  const path = meetingJobPath(id);
  const parsed = UpdateMeetingRequest.safeParse(changes);
  if (!parsed.success) throw meetingValidationError('meeting update', parsed.error, changes);
  const response = await deps.http.request({
    method: 'PATCH',
    path,
    json: parsed.data,
    schema: MeetingJobEnvelope,
    idempotent: true,
    ...meetingRequestOptions(call),
  });
  const job = response.data.job;
  deps.engine.invalidate(MEETING_SERVICE, id);
  await deps.engine.record(MEETING_SERVICE, id, {
    lastStatus: job.status,
    ...(parsed.data.title === undefined ? {} : { title: parsed.data.title }),
  });
  return job;
}

export async function deleteJob(
  deps: MeetingDeps,
  id: string,
  call: MeetingCallOptions = {},
): Promise<SuccessResponse> {
  const path = meetingJobPath(id);
  let retried = false;
  try {
    const response = await deps.http.request({
      method: 'DELETE',
      path,
      schema: SuccessResponse,
      idempotent: true,
      ...meetingRequestOptions(call),
      onRetry: () => {
        retried = true;
      },
    });
    await markDeleted(deps, id);
    return response.data;
  } catch (error) {
    // A 404 on a repeat (and only a 404: a 503 is not "gone") means the first attempt did delete it
    // before the connection broke.
    if (retried && NotFoundError.isInstance(error)) {
      await markDeleted(deps, id);
      return { success: true };
    }
    throw error;
  }
}

async function markDeleted(deps: MeetingDeps, id: string): Promise<void> {
  deps.engine.invalidate(MEETING_SERVICE, id);
  await deps.engine.record(MEETING_SERVICE, id, { lastStatus: 'DELETED' });
}
