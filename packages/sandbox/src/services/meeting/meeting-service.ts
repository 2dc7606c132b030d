/**
 * The meeting summary service (`/api/conference-summary/v1`), simulated faithfully: uploads with signed
 * receipts, idempotent job creation, the state machine with lazily computed progress, state-gated
 * actions, credits charged once on completion, and per-user privacy on a site.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { MeetingState } from '@polymodal/core';
import {
  MEETING_API_PATH,
  MEETING_CREDITS_PER_STARTED_MINUTE,
  MEETING_LIST_LIMIT,
  MEETING_RECEIPT_LIFETIME_MS,
  meetingCost,
} from '@polymodal/core/constants';
import type { RecordingScript } from '../../fixtures/recording-script.js';
import type { KeyScheme, Principal } from '../../framework/authenticator.js';
import { HttpError } from '../../framework/http-error.js';
import type { RequestContext } from '../../framework/request-context.js';
import type { Router } from '../../framework/router.js';
import { json, type SandboxResponse } from '../../framework/sandbox-response.js';
import type { SandboxService, ServiceContext } from '../../framework/sandbox-service.js';
import { buildSummary, type MeetingSummary } from './build-summary.js';
import { buildTranscript, defaultSpeakerNames, type TranscriptSegment } from './build-transcript.js';
import { ActionBody, CreateJobBody, parseBody, UpdateBody } from './job-requests.js';
import {
  type Artifacts,
  type FinalStatus,
  type JobMoment,
  type JobRun,
  NO_ARTIFACTS,
  planPhases,
  processStates,
  runMoment,
} from './job-timeline.js';
import { DETECTED_LANGUAGE, translateText } from './phrase-translations.js';
import { probeRecording, UnsupportedFormatError } from './probe-recording.js';
import { receiveUpload } from './receive-upload.js';
import { createReceiptSigner } from './upload-receipt.js';

const KEY_SCHEMES: readonly KeyScheme[] = ['x-api-key', 'bearer'];
/** Multipart framing allowance on top of maxUploadBytes before a Content-Length alone proves too large. */
const MULTIPART_SLACK_BYTES = 1024 * 1024;
const WARNING_NO_SPEECH = 'No speech was detected in the recording: the transcript and summary are empty.';
const WARNING_ESTIMATED =
  'The duration of the recording could not be read; it was estimated from the file size (credits are based on it).';

interface UploadRecord {
  id: string;
  userId: string;
  site: string;
  filePath: string;
  size: number;
  sha256: Buffer;
  filename: string | undefined;
  durationSeconds: number;
  durationEstimated: boolean;
  script: RecordingScript | undefined;
  issuedAt: number;
  jobId: string | undefined;
}

interface JobRecord {
  id: string;
  sequence: number;
  userId: string;
  site: string;
  upload: UploadRecord;
  createdAt: number;
  title: string;
  sourceLanguage: string;
  targetLanguage: string;
  asrEngine: string;
  noiseReduction: boolean;
  minSpeakers: number;
  maxSpeakers: number;
  credits: number;
  creditsCharged: boolean;
  transcript: TranscriptSegment[];
  summary: MeetingSummary | undefined;
  speakerNames: Record<string, string>;
  attempts: number;
  run: JobRun | undefined;
  /** The state when no run is going on. */
  stopped:
    | { status: FinalStatus; progress: number; artifacts: Artifacts; errorMessage: string | null }
    | undefined;
}

function titleFromFilename(filename: string | undefined): string {
  const base = filename ? path.basename(filename, path.extname(filename)).trim() : '';
  return base || 'Untitled recording';
}

export function createMeetingService(context: ServiceContext): SandboxService {
  const { accounts, clock, counters, config } = context;
  const signer = createReceiptSigner(config.receiptSecret ?? randomBytes(32));
  const uploads = new Map<string, UploadRecord>();
  const jobs = new Map<string, JobRecord>();
  let sequence = 0;

  const authenticate = (request: RequestContext): Principal => {
    const principal = request.authenticate(KEY_SCHEMES);
    if (!accounts.hasFeature(principal.user.id, 'meetingSummary')) {
      throw new HttpError(403, 'meeting summaries are not enabled for this account');
    }
    return principal;
  };

  const moment = (job: JobRecord, now = clock.now()): JobMoment => {
    if (job.run) return runMoment(job.run, now);
    const stopped = job.stopped!;
    return {
      status: stopped.status,
      progress: stopped.progress,
      artifacts: stopped.artifacts,
      errorMessage: stopped.errorMessage,
    };
  };

  const findJob = (principal: Principal, id: string): JobRecord => {
    const job = jobs.get(id);
    // Another user's recording is reported exactly like a missing one.
    if (!job || job.userId !== principal.user.id || job.site !== principal.user.site) {
      throw new HttpError(404, `recording ${id} not found or not accessible with this key`);
    }
    return job;
  };

  const startRun = (job: JobRecord, kind: JobRun['kind'], base: Artifacts) => {
    let states: MeetingState[];
    if (kind === 'process') states = processStates(job.noiseReduction);
    else if (kind === 'resummarize')
      states = [...(base.translation ? [] : (['TRANSLATING'] as const)), 'SUMMARIZING'];
    else states = ['TRANSLATING', ...(base.summary ? [] : (['SUMMARIZING'] as const))];
    const script = job.upload.script;
    if (kind === 'process') job.attempts++;
    const fails =
      kind === 'process' &&
      script?.fail !== undefined &&
      (script.failAttempts === undefined || job.attempts <= script.failAttempts);
    job.run = {
      kind,
      startedAt: clock.now(),
      phases: planPhases(states, job.upload.durationSeconds, context.speed),
      base,
      ...(fails ? { failure: { afterState: 'TRANSCRIBING' as const, message: script!.fail! } } : {}),
    };
    job.stopped = undefined;
  };

  /** Ends the runs that are over on the clock, in the order they ended; charges completed jobs once. */
  const settle = () => {
    const now = clock.now();
    const finished: { job: JobRecord; moment: JobMoment; at: number }[] = [];
    for (const job of jobs.values()) {
      if (!job.run) continue;
      const current = runMoment(job.run, now);
      if (current.finished) finished.push({ job, moment: current, at: current.finished.at });
    }
    finished.sort((a, b) => a.at - b.at || a.job.sequence - b.job.sequence);
    for (const { job, moment: current } of finished) {
      job.run = undefined;
      if (current.status === 'COMPLETED' && !job.creditsCharged) {
        if (accounts.charge(job.userId, job.credits)) {
          job.creditsCharged = true;
          counters.increment('creditsCharged', job.userId, job.credits);
        } else {
          job.stopped = {
            status: 'FAILED',
            progress: 99,
            artifacts: { ...current.artifacts, summary: false },
            errorMessage: `insufficient credits to complete: this recording costs ${job.credits} credits; add credits, then retry`,
          };
          continue;
        }
      }
      job.stopped = {
        status: current.status as FinalStatus,
        progress: current.progress,
        artifacts: current.artifacts,
        errorMessage: current.errorMessage,
      };
    }
    // Uploads never turned into a job are dropped once their receipt has expired.
    for (const upload of uploads.values()) {
      if (!upload.jobId && now - upload.issuedAt > MEETING_RECEIPT_LIFETIME_MS) {
        uploads.delete(upload.id);
        void rm(upload.filePath, { force: true });
      }
    }
  };

  const summaryOf = (job: JobRecord): MeetingSummary => {
    job.summary ??= buildSummary({
      transcript: job.transcript,
      durationSeconds: job.upload.durationSeconds,
      meetingDate: new Date(job.createdAt),
    });
    return job.summary;
  };

  const sourceLanguageOf = (job: JobRecord) =>
    job.sourceLanguage === 'auto' ? DETECTED_LANGUAGE : job.sourceLanguage;

  const jobView = (job: JobRecord) => {
    const current = moment(job);
    const warnings: string[] = [];
    if (job.upload.durationEstimated) warnings.push(WARNING_ESTIMATED);
    if (current.artifacts.transcript && job.transcript.length === 0) warnings.push(WARNING_NO_SPEECH);
    const sourceLanguage = sourceLanguageOf(job);
    return {
      id: job.id,
      status: current.status,
      progress: current.progress,
      credits: job.credits,
      creditsCharged: job.creditsCharged,
      title: job.title,
      createdAt: new Date(job.createdAt).toISOString(),
      durationSeconds: job.upload.durationSeconds,
      sourceLanguage: job.sourceLanguage,
      targetLanguage: job.targetLanguage,
      asrEngine: job.asrEngine,
      noiseReduction: job.noiseReduction,
      minSpeakers: job.minSpeakers,
      maxSpeakers: job.maxSpeakers,
      transcript: current.artifacts.transcript ? job.transcript : null,
      translatedTranscript: current.artifacts.translation
        ? job.transcript.map((segment) => ({
            ...segment,
            text: translateText(segment.text, job.targetLanguage, sourceLanguage),
          }))
        : null,
      speakerNames: current.artifacts.transcript
        ? { ...defaultSpeakerNames(job.transcript), ...job.speakerNames }
        : null,
      summary: current.artifacts.summary ? summaryOf(job) : null,
      warning: warnings.length ? warnings.join(' ') : null,
      errorMessage: current.errorMessage,
    };
  };

  async function upload(request: RequestContext): Promise<SandboxResponse> {
    const { user } = authenticate(request);
    const { maxUploadBytes, maxDurationSeconds } = config.limits;
    const declared = Number(request.request.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxUploadBytes + MULTIPART_SLACK_BYTES) {
      throw new HttpError(413, `upload too large: the limit is ${maxUploadBytes} bytes`, {
        headers: { connection: 'close' },
      });
    }
    const id = `upl_${randomBytes(12).toString('hex')}`;
    const filePath = path.join(context.dataDir, `${id}.upload`);
    const received = await receiveUpload({
      request: request.request,
      field: 'file',
      filePath,
      maxBytes: maxUploadBytes,
    });
    if (received.kind === 'missing')
      throw new HttpError(400, 'missing file: send the recording in the multipart field "file"');
    if (received.kind === 'too-large') {
      throw new HttpError(413, `upload too large: the limit is ${maxUploadBytes} bytes`, {
        headers: { connection: 'close' },
      });
    }
    const { file } = received;
    let probe: Awaited<ReturnType<typeof probeRecording>>;
    try {
      probe = await probeRecording({ filePath, filename: file.filename, size: file.size });
    } catch (error) {
      await rm(filePath, { force: true });
      if (error instanceof UnsupportedFormatError) throw new HttpError(400, error.message);
      throw error;
    }
    if (probe.durationSeconds > maxDurationSeconds) {
      await rm(filePath, { force: true });
      throw new HttpError(
        413,
        `recording too long: ${Math.round(probe.durationSeconds)} s; the limit is ${maxDurationSeconds} s (2 hours)`,
      );
    }
    const issuedAt = clock.now();
    uploads.set(id, {
      id,
      userId: user.id,
      site: user.site,
      filePath,
      size: file.size,
      sha256: file.sha256,
      filename: file.filename,
      durationSeconds: probe.durationSeconds,
      durationEstimated: probe.durationEstimated,
      script: probe.script,
      issuedAt,
      jobId: undefined,
    });
    counters.increment('uploads', user.id);
    return json(201, {
      uploadReceipt: signer.sign({ userId: user.id, site: user.site, uploadId: id, issuedAt }),
      uploadId: id,
      sizeBytes: file.size,
      durationSeconds: probe.durationSeconds,
      expiresAt: new Date(issuedAt + MEETING_RECEIPT_LIFETIME_MS).toISOString(),
    });
  }

  async function createJob(request: RequestContext): Promise<SandboxResponse> {
    const { user } = authenticate(request);
    const body = parseBody(CreateJobBody, await request.readJson());
    const claims = signer.verify(body.uploadReceipt);
    if (!claims)
      throw new HttpError(
        400,
        'invalid upload receipt: it is malformed or was altered; upload the file again',
      );
    if (claims.userId !== user.id || claims.site !== user.site) {
      throw new HttpError(400, 'invalid upload receipt: it was issued to another account');
    }
    if (clock.now() - claims.issuedAt > MEETING_RECEIPT_LIFETIME_MS) {
      throw new HttpError(400, 'upload receipt expired (receipts last 2 hours): upload the file again');
    }
    const uploaded = uploads.get(claims.uploadId);
    if (!uploaded)
      throw new HttpError(400, 'invalid upload receipt: its recording was deleted; upload the file again');
    if (uploaded.jobId) {
      // The same receipt again: the job it created, in whatever state (safe retries of creation).
      return json(200, { id: uploaded.jobId });
    }
    const cost = meetingCost(uploaded.durationSeconds, config.limits.minimumCredits);
    const balance = accounts.getCredits(user.id);
    if (balance < cost) {
      throw new HttpError(
        402,
        `insufficient credits: this recording costs ${cost} credits and the account has ${balance}`,
      );
    }
    const now = clock.now();
    const job: JobRecord = {
      id: `mtg_${randomBytes(10).toString('hex')}`,
      sequence: ++sequence,
      userId: user.id,
      site: user.site,
      upload: uploaded,
      createdAt: now,
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
    startRun(job, 'process', NO_ARTIFACTS);
    jobs.set(job.id, job);
    uploaded.jobId = job.id;
    counters.increment('jobsCreated', user.id);
    return json(201, { id: job.id });
  }

  function listJobs(request: RequestContext): SandboxResponse {
    const { user } = authenticate(request);
    const own = [...jobs.values()]
      .filter((job) => job.userId === user.id && job.site === user.site)
      .sort((a, b) => b.sequence - a.sequence)
      .slice(0, MEETING_LIST_LIMIT);
    return json(200, {
      jobs: own.map((job) => {
        const current = moment(job);
        return {
          id: job.id,
          title: job.title,
          status: current.status,
          progress: current.progress,
          createdAt: new Date(job.createdAt).toISOString(),
          credits: job.credits,
        };
      }),
      maxUploadBytes: config.limits.maxUploadBytes,
      pricing: {
        minimumCredits: config.limits.minimumCredits,
        creditsPerStartedMinute: MEETING_CREDITS_PER_STARTED_MINUTE,
        currency: 'credits',
      },
    });
  }

  function getJob(request: RequestContext): SandboxResponse {
    const principal = authenticate(request);
    return json(200, { job: jobView(findJob(principal, request.params.id!)) });
  }

  async function actOnJob(request: RequestContext): Promise<SandboxResponse> {
    const principal = authenticate(request);
    const body = parseBody(ActionBody, await request.readJson());
    const job = findJob(principal, request.params.id!);
    const current = moment(job);
    const running = job.run !== undefined;
    switch (body.action) {
      case 'cancel':
        if (!running)
          throw new HttpError(409, `cannot cancel: the job is ${current.status} (processing has stopped)`);
        job.run = undefined;
        job.stopped = {
          status: 'CANCELLED',
          progress: current.progress,
          artifacts: current.artifacts,
          errorMessage: null,
        };
        break;
      case 'retry':
        if (running || (current.status !== 'FAILED' && current.status !== 'CANCELLED')) {
          throw new HttpError(
            409,
            `cannot retry: the job is ${current.status}; only FAILED or CANCELLED jobs can be retried`,
          );
        }
        startRun(job, 'process', NO_ARTIFACTS);
        break;
      case 'resummarize':
      case 'retranslate': {
        if (running)
          throw new HttpError(409, `cannot ${body.action}: the job is still processing (${current.status})`);
        if (!current.artifacts.transcript || job.transcript.length === 0) {
          throw new HttpError(409, `cannot ${body.action}: the job has no valid transcript`);
        }
        if (body.action === 'resummarize') {
          startRun(job, 'resummarize', { ...current.artifacts, summary: false });
        } else {
          job.targetLanguage = body.targetLanguage!;
          startRun(job, 'retranslate', { ...current.artifacts, translation: false });
        }
        break;
      }
    }
    return json(200, { success: true });
  }

  async function updateJob(request: RequestContext): Promise<SandboxResponse> {
    const principal = authenticate(request);
    const body = parseBody(UpdateBody, await request.readJson());
    const job = findJob(principal, request.params.id!);
    if (body.speakerNames !== undefined) {
      const current = moment(job);
      if (!current.artifacts.transcript) {
        throw new HttpError(409, 'cannot rename speakers: the transcript does not exist yet');
      }
      const known = new Set(job.transcript.map((segment) => segment.speakerId));
      const unknown = Object.keys(body.speakerNames).filter((id) => !known.has(id));
      if (unknown.length > 0) {
        throw new HttpError(
          409,
          `cannot rename speakers: ${unknown.join(', ')} not in the transcript (speakers: ${[...known].join(', ') || 'none'})`,
        );
      }
      Object.assign(job.speakerNames, body.speakerNames);
    }
    if (body.title !== undefined) job.title = body.title;
    return json(200, { job: jobView(job) });
  }

  async function deleteJob(request: RequestContext): Promise<SandboxResponse> {
    const principal = authenticate(request);
    const job = findJob(principal, request.params.id!);
    const current = moment(job);
    if (job.run) {
      throw new HttpError(
        409,
        `cannot delete: the job is ${current.status}; cancel it first or wait until it stops`,
      );
    }
    jobs.delete(job.id);
    uploads.delete(job.upload.id);
    await rm(job.upload.filePath, { force: true });
    return json(200, { success: true });
  }

  const removeAll = async () => {
    const files = [...uploads.values()].map((entry) => entry.filePath);
    uploads.clear();
    jobs.clear();
    await Promise.all(files.map((file) => rm(file, { force: true })));
  };

  return {
    name: 'meeting',
    register(router: Router) {
      const base = MEETING_API_PATH;
      router.route('POST', `${base}/uploads`, upload);
      router.route('POST', `${base}/jobs`, createJob);
      router.route('GET', `${base}/jobs`, listJobs);
      router.route('GET', `${base}/jobs/:id`, getJob);
      router.route('POST', `${base}/jobs/:id`, actOnJob);
      router.route('PATCH', `${base}/jobs/:id`, updateJob);
      router.route('DELETE', `${base}/jobs/:id`, deleteJob);
    },
    settle,
    async reset() {
      await removeAll();
      sequence = 0;
    },
    close: removeAll,
  };
}
