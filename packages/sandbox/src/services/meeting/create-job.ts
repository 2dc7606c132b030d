/**
 * `POST /jobs`: a job from a signed upload receipt. The receipt must be intact, the caller's, unexpired
 * and its recording still stored; the same receipt again answers the job it created (safe retries), and
 * the account must hold the job's credits (charged only on completion).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { MEETING_RECEIPT_LIFETIME_MS, meetingCost } from '@polymodal/core/constants';
import type { SandboxUser } from '../../framework/accounts.js';
import { HttpError } from '../../framework/http-error.js';
import type { RequestContext } from '../../framework/request-context.js';
import { json, type SandboxResponse } from '../../framework/sandbox-response.js';
import { buildTranscript } from './build-transcript.js';
import { CreateJobBody, parseBody } from './job-requests.js';
import { startRun } from './job-runs.js';
import { NO_ARTIFACTS } from './job-timeline.js';
import {
  authenticate,
  type JobRecord,
  type MeetingServiceState,
  type UploadRecord,
} from './meeting-service-state.js';

function titleFromFilename(filename: string | undefined): string {
  const base = filename ? path.basename(filename, path.extname(filename)).trim() : '';
  return base || 'Untitled recording';
}

/** The upload a receipt names, once the receipt proves intact, the caller's and unexpired. */
function redeemReceipt(state: MeetingServiceState, user: SandboxUser, receipt: string): UploadRecord {
  const claims = state.signer.verify(receipt);
  if (!claims)
    throw new HttpError(400, 'invalid upload receipt: it is malformed or was altered; upload the file again');
  if (claims.userId !== user.id || claims.site !== user.site) {
    throw new HttpError(400, 'invalid upload receipt: it was issued to another account');
  }
  if (state.clock.now() - claims.issuedAt > MEETING_RECEIPT_LIFETIME_MS) {
    throw new HttpError(400, 'upload receipt expired (receipts last 2 hours): upload the file again');
  }
  const uploaded = state.uploads.get(claims.uploadId);
  if (!uploaded)
    throw new HttpError(400, 'invalid upload receipt: its recording was deleted; upload the file again');
  return uploaded;
}

interface NewJob {
  user: SandboxUser;
  uploaded: UploadRecord;
  body: CreateJobBody;
  cost: number;
}

function newJobRecord(state: MeetingServiceState, { user, uploaded, body, cost }: NewJob): JobRecord {
  return {
    id: `mtg_${randomBytes(10).toString('hex')}`,
    sequence: ++state.sequence,
    userId: user.id,
    site: user.site,
    upload: uploaded,
    createdAt: state.clock.now(),
    title: titleFromFilename(uploaded.filename),
    sourceLanguage: body.sourceLanguage,
    targetLanguage: body.targetLanguage,
    asrEngine: body.asrEngine ?? 'engineone_asr',
    noiseReduction: body.noiseReduction ?? true,
    minSpeakers: body.minSpeakers ?? 0,
    maxSpeakers: body.maxSpeakers ?? 0,
    credits: cost,
    creditsCharged: false,
    transcript: buildTranscript({
      script: uploaded.script,
      durationSeconds: uploaded.durationSeconds,
      digest: uploaded.sha256,
      minSpeakers: body.minSpeakers ?? 0,
      maxSpeakers: body.maxSpeakers ?? 0,
    }),
    summary: undefined,
    speakerNames: {},
    attempts: 0,
    run: undefined,
    stopped: undefined,
  };
}

export async function createJob(
  state: MeetingServiceState,
  request: RequestContext,
): Promise<SandboxResponse> {
  const { user } = authenticate(state, request);
  const body = parseBody(CreateJobBody, await request.readJson());
  const uploaded = redeemReceipt(state, user, body.uploadReceipt);
  if (uploaded.jobId) {
    // The same receipt again: the job it created, in whatever state (safe retries of creation).
    return json(200, { id: uploaded.jobId });
  }
  const cost = meetingCost(uploaded.durationSeconds, state.config.limits.minimumCredits);
  const balance = state.accounts.getCredits(user.id);
  if (balance < cost) {
    throw new HttpError(
      402,
      `insufficient credits: this recording costs ${cost} credits and the account has ${balance}`,
    );
  }
  const job = newJobRecord(state, { user, uploaded, body, cost });
  startRun(state, job, { kind: 'process', base: NO_ARTIFACTS });
  state.jobs.set(job.id, job);
  uploaded.jobId = job.id;
  state.counters.increment('jobsCreated', user.id);
  return json(201, { id: job.id });
}
