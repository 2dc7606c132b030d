/**
 * Client of the meeting summary service (`/api/conference-summary/v1`): typed methods over the HTTP
 * chokepoint (`meeting-requests.ts`), the upload (`meeting-upload.ts`), and `submit`/`summarize`
 * (`meeting-submit.ts`) with `retrieve`/`poll`/`wait` on the job engine, so that nothing paid for is lost
 * or done twice and every status read is recorded and spaced by the spec's 5 s.
 */
import { createJobEngine } from '../jobs/create-job-engine.js';
import { defineMeetingJobs, type MeetingDeps } from './meeting-deps.js';
import { actOnJob, createJob, deleteJob, listJobs, retranslateJob, updateJob } from './meeting-requests.js';
import { submitRecording, summarizeRecording } from './meeting-submit.js';
import type { MeetingClient, MeetingClientOptions } from './meeting-types.js';
import { uploadRecording } from './meeting-upload.js';

export function createMeetingClient(options: MeetingClientOptions): MeetingClient {
  const { http } = options;
  const engine = options.engine ?? createJobEngine();
  const jobs = defineMeetingJobs({ http, engine, pollIntervalMs: options.pollIntervalMs });
  const deps: MeetingDeps = { http, engine, files: options.files, jobs, uploadLimit: undefined };
  return {
    upload: (file, call) => uploadRecording(deps, file, call),
    create: (request, call) => createJob(deps, request, call),
    list: (call) => listJobs(deps, call),
    retrieve: jobs.retrieve,
    cancel: (id, call = {}) => actOnJob(deps, { id, action: 'cancel', call }),
    retry: (id, call = {}) => actOnJob(deps, { id, action: 'retry', call }),
    resummarize: (id, call = {}) => actOnJob(deps, { id, action: 'resummarize', call }),
    retranslate: (id, request, call) => retranslateJob(deps, id, request, call),
    update: (id, changes, call) => updateJob(deps, id, changes, call),
    delete: (id, call) => deleteJob(deps, id, call),
    submit: (submitOptions) => submitRecording(deps, submitOptions),
    poll: jobs.poll,
    wait: jobs.wait,
    summarize: (summarizeOptions) => summarizeRecording(deps, summarizeOptions),
  };
}
