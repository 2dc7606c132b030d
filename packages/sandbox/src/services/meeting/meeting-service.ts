/**
 * The meeting summary service (`/api/conference-summary/v1`), simulated faithfully: uploads with signed
 * receipts, idempotent job creation, the state machine with lazily computed progress, state-gated
 * actions, credits charged once on completion, and per-user privacy on a site.
 *
 * This module wires the routes to their handlers and owns the service's lifecycle; the handlers live in
 * modules of their own, over the state of meeting-service-state.ts.
 */
import { rm } from 'node:fs/promises';
import {
  MEETING_API_PATH,
  MEETING_CREDITS_PER_STARTED_MINUTE,
  MEETING_LIST_LIMIT,
} from '@polymodal/core/constants';
import type { RequestContext } from '../../framework/request-context.js';
import type { Router } from '../../framework/router.js';
import { json, type SandboxResponse } from '../../framework/sandbox-response.js';
import type { SandboxService, ServiceContext } from '../../framework/sandbox-service.js';
import { createJob } from './create-job.js';
import { actOnJob, deleteJob, updateJob } from './job-actions.js';
import { settleJobs } from './job-runs.js';
import { jobListEntry, jobView } from './job-view.js';
import {
  authenticate,
  createMeetingServiceState,
  findJob,
  type MeetingServiceState,
} from './meeting-service-state.js';
import { uploadRecording } from './upload-recording.js';

type MeetingHandler = (
  state: MeetingServiceState,
  request: RequestContext,
) => SandboxResponse | Promise<SandboxResponse>;

/** The caller's newest jobs on their site, with the account's upload limit and pricing. */
function listJobs(state: MeetingServiceState, request: RequestContext): SandboxResponse {
  const { user } = authenticate(state, request);
  const { limits } = state.config;
  const own = [...state.jobs.values()]
    .filter((job) => job.userId === user.id && job.site === user.site)
    .sort((a, b) => b.sequence - a.sequence)
    .slice(0, MEETING_LIST_LIMIT);
  return json(200, {
    jobs: own.map((job) => jobListEntry(state, job)),
    maxUploadBytes: limits.maxUploadBytes,
    pricing: {
      minimumCredits: limits.minimumCredits,
      creditsPerStartedMinute: MEETING_CREDITS_PER_STARTED_MINUTE,
      currency: 'credits',
    },
  });
}

function getJob(state: MeetingServiceState, request: RequestContext): SandboxResponse {
  const principal = authenticate(state, request);
  return json(200, { job: jobView(state, findJob(state, principal, request.params.id!)) });
}

/** Forgets every upload and job and removes the stored recordings. */
async function removeAll(state: MeetingServiceState): Promise<void> {
  const files = [...state.uploads.values()].map((entry) => entry.filePath);
  state.uploads.clear();
  state.jobs.clear();
  await Promise.all(files.map((file) => rm(file, { force: true })));
}

export function createMeetingService(context: ServiceContext): SandboxService {
  const state = createMeetingServiceState(context);
  const on = (handler: MeetingHandler) => (request: RequestContext) => handler(state, request);
  return {
    name: 'meeting',
    register(router: Router) {
      const base = MEETING_API_PATH;
      router.route('POST', `${base}/uploads`, on(uploadRecording));
      router.route('POST', `${base}/jobs`, on(createJob));
      router.route('GET', `${base}/jobs`, on(listJobs));
      router.route('GET', `${base}/jobs/:id`, on(getJob));
      router.route('POST', `${base}/jobs/:id`, on(actOnJob));
      router.route('PATCH', `${base}/jobs/:id`, on(updateJob));
      router.route('DELETE', `${base}/jobs/:id`, on(deleteJob));
    },
    settle: () => settleJobs(state),
    async reset() {
      await removeAll(state);
      state.sequence = 0;
    },
    close: () => removeAll(state),
  };
}
