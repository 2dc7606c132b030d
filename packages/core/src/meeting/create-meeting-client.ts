/**
 * Client of the meeting summary service (`/api/conference-summary/v1`): typed methods over the HTTP
 * chokepoint, plus `submit`/`poll`/`wait`/`summarize` on the job engine, so that nothing paid for is lost
 * or done twice: the submission is claimed before the upload, the receipt is recorded before the job is
 * created, the job id right after, and every status read is recorded and spaced by the spec's 5 s.
 *
 * Where the spec is silent, the conservative choice (tested):
 * - an upload answered 503 ("authentication or cleanup unavailable") stored nothing, so it is retried
 *   with back-off like a refused connection; any other failure after the upload may have arrived is not;
 * - a submission interrupted in any step may be run again: an upload alone is not charged, and a job
 *   created from a recorded receipt answers 200 with the existing job instead of creating a second one.
 */
import { z } from 'zod';
import {
  MEETING_RECEIPT_LIFETIME_MS,
  type MeetingAsrEngine,
  MeetingLanguage,
} from '../constants/meeting-constants.js';
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
  UploadResponse,
} from '../contracts/meeting.js';
import { BadRequestError, NotFoundError } from '../errors/api-error.js';
import { describeIssues, listIssues } from '../errors/describe-issues.js';
import { JobFailedError, ValidationError } from '../errors/polymodal-error.js';
import type { FileAccess } from '../files/create-file-access.js';
import { type OpenedFile, openRegularFile } from '../files/open-verified-file.js';
import { type SharedFile, shareOpenedFile } from '../files/share-opened-file.js';
import { type CallOptions, requestOptionsOf, startCall, waitTimeoutMs } from '../http/call-options.js';
import type { HttpClient } from '../http/http-client.js';
import { createJobEngine, type JobEngine, type SubmissionPatch } from '../jobs/create-job-engine.js';
import { defineJobResource, type JobPollOptions, type JobWaitOptions } from '../jobs/job-resource.js';
import type { PollOutcome } from '../jobs/poll-job.js';
import type { LedgerEntry, LedgerPatch } from '../ledger/create-job-ledger.js';
import { fingerprint } from '../ledger/fingerprint.js';
import {
  assertWithinUploadLimit,
  inspectOpenedRecording,
  type RecordingInfo,
} from '../media/inspect-recording.js';
import { createMultipartFileBody } from '../upload/create-multipart-file-body.js';
import { MEETING_JOB } from '../views/meeting-job.js';
/** The reference client gives up waiting after 4 hours (the job keeps running). */
export const MEETING_WAIT_TIMEOUT_MS = 4 * 60 * 60 * 1000;
/** A recorded receipt is reused only while it has this much life left. */
const RECEIPT_SAFETY_MARGIN_MS = 5 * 60 * 1000;
/** How long the service's `maxUploadBytes` is trusted before it is read again. */
const LIMITS_TTL_MS = 10 * 60 * 1000;
/** Statuses after which a ledger entry is not resumed but submitted anew. */
const NOT_RESUMABLE = new Set(['FAILED', 'CANCELLED', 'DELETED']);
const RetranslateRequest = z.strictObject({ targetLanguage: MeetingLanguage });

/** The per-call options (`signal`, `timeout`, `maxRetries`), with the meeting client's finer controls. */
export interface MeetingCallOptions extends CallOptions {
  /** When the call must be over (epoch ms): every attempt is cut at it, no retry pause runs past it. */
  deadline?: number | undefined;
  /** Per-attempt timeout (ms). */
  timeoutMs?: number | undefined;
}

export interface UploadOptions extends MeetingCallOptions {
  onProgress?: (sentBytes: number, totalBytes: number) => void;
}

export interface UploadResult {
  uploadReceipt: string;
  recording: RecordingInfo;
}

export interface CreateResult {
  id: string;
  /** False when the service returned an existing job for the same receipt. */
  created: boolean;
}

export interface SummarizeOptions extends CallOptions {
  /** Recording path; confined to the allowed directories when the client has a FileAccess. */
  file: string;
  sourceLanguage: 'auto' | MeetingLanguage;
  targetLanguage: MeetingLanguage;
  asrEngine?: MeetingAsrEngine;
  noiseReduction?: boolean;
  minSpeakers?: number;
  maxSpeakers?: number;
  title?: string;
  signal?: AbortSignal;
  /**
   * How long this call waits for an identical submission already running (here or in another process)
   * before it answers `SubmissionInProgressError`; that submission goes on. Epoch ms; default none.
   */
  deadline?: number;
  onUploadProgress?: (sentBytes: number, totalBytes: number) => void;
  /** Submit a new job even when the ledger holds one for the same file and options. */
  force?: boolean;
  /**
   * Called when this call is about to start new paid work (not when it resumes or joins a recorded job),
   * after the recording was inspected and before anything is sent: it may refuse by throwing (a credit
   * budget), and may record what it reserved in the claimed ledger entry through `save`.
   */
  admit?: (admission: SubmissionAdmission) => Promise<void>;
}

export interface SubmissionAdmission {
  recording: RecordingInfo;
  /** The ledger entry this call has claimed (undefined without a ledger). */
  entry: LedgerEntry | undefined;
  /** The entry as it was before the claim: an interrupted attempt, or an earlier job being replaced. */
  previous: LedgerEntry | undefined;
  save(patch: SubmissionPatch): Promise<void>;
}

export interface SubmitResult {
  id: string;
  created: boolean;
  /** True when an earlier job (or recorded receipt) was reused: nothing was uploaded again. */
  resumed: boolean;
  /** True when this call joined an identical submission that was already running. */
  joined: boolean;
  /** The job's status as last known (from the creation, or the resume check). */
  status: string;
  /** Present when the file was inspected and uploaded in this call. */
  recording?: RecordingInfo;
  /** Set when the job exists but a secondary step (setting the title) failed. */
  warning?: string;
}

export type MeetingSummarizeOptions = SummarizeOptions & {
  timeoutMs?: number;
  onProgress?: (job: MeetingJob) => void;
};

export interface MeetingClient {
  upload(file: string, options?: UploadOptions): Promise<UploadResult>;
  create(request: CreateMeetingJobRequest, options?: MeetingCallOptions): Promise<CreateResult>;
  list(options?: MeetingCallOptions): Promise<MeetingJobList>;
  retrieve(id: string, options?: MeetingCallOptions): Promise<MeetingJob>;
  cancel(id: string, options?: MeetingCallOptions): Promise<SuccessResponse>;
  retry(id: string, options?: MeetingCallOptions): Promise<SuccessResponse>;
  resummarize(id: string, options?: MeetingCallOptions): Promise<SuccessResponse>;
  retranslate(
    id: string,
    request: { targetLanguage: MeetingLanguage; signal?: AbortSignal },
    options?: MeetingCallOptions,
  ): Promise<SuccessResponse>;
  update(
    id: string,
    changes: { title?: string; speakerNames?: Record<string, string> },
    options?: MeetingCallOptions,
  ): Promise<MeetingJob>;
  delete(id: string, options?: MeetingCallOptions): Promise<SuccessResponse>;
  submit(options: SummarizeOptions): Promise<SubmitResult>;
  /** Waits on a job until it stops (or `until`) or `deadline` comes; never reads faster than every 5 s. */
  poll(id: string, options: JobPollOptions<MeetingJob>): Promise<PollOutcome<MeetingJob>>;
  /** Waits until the job stops; throws PollingTimeoutError after `timeoutMs` (default 4 h). */
  wait(id: string, options?: JobWaitOptions<MeetingJob>): Promise<MeetingJob>;
  summarize(options: MeetingSummarizeOptions): Promise<MeetingJob>;
}

export interface MeetingClientOptions {
  /** Created with `auth: 'bearer'`: the meeting service authenticates with `Authorization: Bearer`. */
  http: HttpClient;
  /** The job engine (claims, ledger, polling); default one without a ledger (nothing resumable). */
  engine?: JobEngine;
  files?: FileAccess;
  /** Minimum time between two reads of a job (default 5 s, the spec's polling rule; lower only in tests). */
  pollIntervalMs?: number;
}

function validationError(what: string, error: z.ZodError, input: unknown): ValidationError {
  const issues = describeIssues(error, input);
  return new ValidationError(
    `Invalid ${what}: ${listIssues(issues)}. Fix these fields; nothing was sent.`,
    issues,
  );
}

function checkId(id: string): string {
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
  return encodeURIComponent(id);
}

/** Upload time budget: at least 2 min, plus enough for a slow (128 KB/s) uplink. */
function uploadTimeoutMs(size: number, base: number): number {
  return Math.max(base, 120_000 + Math.ceil(size / 128));
}

export function createMeetingClient(options: MeetingClientOptions): MeetingClient {
  const { http, files } = options;
  const engine = options.engine ?? createJobEngine();
  const api = MEETING_API_PATH;
  let limits: { maxUploadBytes: number | undefined; readAt: number } | undefined;

  /** The per-call options every request passes to the chokepoint. */
  function callOptions(call: MeetingCallOptions) {
    return {
      ...requestOptionsOf(call),
      ...(call.timeoutMs === undefined ? {} : { timeoutMs: call.timeoutMs }),
    };
  }

  async function list(call: MeetingCallOptions = {}): Promise<MeetingJobList> {
    const response = await http.request({
      method: 'GET',
      path: `${api}/jobs`,
      schema: MeetingJobList,
      idempotent: true,
      ...callOptions(call),
    });
    limits = { maxUploadBytes: response.data.maxUploadBytes ?? undefined, readAt: Date.now() };
    return response.data;
  }

  /** The service's upload limit, read once in a while; unknown when the list cannot be read. */
  async function maxUploadBytes(signal: AbortSignal | undefined): Promise<number | undefined> {
    if (limits && Date.now() - limits.readAt < LIMITS_TTL_MS) return limits.maxUploadBytes;
    try {
      await list({ signal });
    } catch {
      if (signal?.aborted) throw signal.reason;
      // Not fatal: the server enforces its limit with a 413 anyway.
      return undefined;
    }
    return limits?.maxUploadBytes;
  }

  /**
   * Opens the recording once, confined when the client has a FileAccess: every later read of the call
   * (inspection, upload, a retried upload) goes through this descriptor, never through the path again.
   */
  async function openRecording(file: string): Promise<OpenedFile> {
    return files ? files.openReadable(file) : openRegularFile(file);
  }

  /**
   * Uploads an opened, inspected recording. The limit lookup is the only request before the upload; the
   * body (and a retry's) is read from the descriptor, so a path swapped meanwhile changes nothing.
   */
  async function uploadOpened(
    opened: OpenedFile,
    recording: RecordingInfo,
    call: UploadOptions,
  ): Promise<UploadResult> {
    const maxBytes = await maxUploadBytes(call.signal);
    if (maxBytes !== undefined) assertWithinUploadLimit(recording, maxBytes);
    const response = await http.request({
      method: 'POST',
      path: `${api}/uploads`,
      multipart: () =>
        createMultipartFileBody({
          field: 'file',
          file: opened,
          filename: recording.name,
          contentType: recording.contentType,
          ...(call.onProgress ? { onProgress: call.onProgress } : {}),
        }),
      schema: UploadResponse,
      // Every upload creates a new recording, so it is repeated only when it provably never arrived, or
      // after a 503: the spec's 503 is "authentication unavailable", answered before anything is stored.
      idempotent: false,
      retryStatuses: [503],
      signal: call.signal,
      deadline: call.deadline,
      maxRetries: call.maxRetries,
      timeoutMs: uploadTimeoutMs(recording.size, 60_000),
    });
    return { uploadReceipt: response.data.uploadReceipt, recording };
  }

  async function upload(file: string, options: UploadOptions = {}): Promise<UploadResult> {
    const call = startCall(options);
    const opened = await openRecording(file);
    try {
      // Inspected before any request: a recording that is bad locally costs nothing, not even the lookup.
      const recording = await inspectOpenedRecording(opened);
      return await uploadOpened(opened, recording, call);
    } finally {
      await opened.handle.close();
    }
  }

  async function create(
    request: CreateMeetingJobRequest,
    call: MeetingCallOptions = {},
  ): Promise<CreateResult> {
    const parsed = CreateMeetingJobRequest.safeParse(request);
    if (!parsed.success) throw validationError('meeting job request', parsed.error, request);
    const response = await http.request({
      method: 'POST',
      path: `${api}/jobs`,
      json: parsed.data,
      schema: CreateJobResponse,
      // Safe to repeat: the same receipt yields the existing job (HTTP 200) instead of a second one.
      idempotent: true,
      ...callOptions(call),
    });
    return { id: response.data.id, created: response.status === 201 };
  }

  /** Meeting jobs: one GET of the job, every answer (and Retry-After) recorded by the engine, 5 s apart. */
  const jobs = defineJobResource<MeetingJob>({
    service: MEETING_SERVICE,
    kind: MEETING_JOB,
    engine,
    intervalMs: options.pollIntervalMs,
    waitTimeoutMs: MEETING_WAIT_TIMEOUT_MS,
    locate: (id) => ({ id, path: `${api}/jobs/${checkId(id)}` }),
    fetch: async (path, call: MeetingCallOptions) => {
      const response = await http.request({
        method: 'GET',
        path,
        schema: MeetingJobEnvelope,
        idempotent: true,
        ...callOptions(call),
      });
      return { ...response, data: response.data.job };
    },
    observed: ({ data: job }, id) => ({ patch: recordedFields(id, job) }),
  });

  async function act(
    id: string,
    action: MeetingAction,
    extra: Record<string, unknown>,
    call: MeetingCallOptions,
  ): Promise<SuccessResponse> {
    const response = await http.request({
      method: 'POST',
      path: `${api}/jobs/${checkId(id)}`,
      json: { action, ...extra },
      schema: SuccessResponse,
      // Actions start paid or destructive work; repeated only when the server provably did not act.
      idempotent: false,
      ...callOptions(call),
    });
    // The job changed: what was read before the action no longer describes it.
    engine.invalidate(MEETING_SERVICE, id);
    return response.data;
  }

  async function update(
    id: string,
    changes: { title?: string; speakerNames?: Record<string, string> },
    call: MeetingCallOptions = {},
  ): Promise<MeetingJob> {
    const encoded = checkId(id);
    const parsed = UpdateMeetingRequest.safeParse(changes);
    if (!parsed.success) throw validationError('meeting update', parsed.error, changes);
    const response = await http.request({
      method: 'PATCH',
      path: `${api}/jobs/${encoded}`,
      json: parsed.data,
      schema: MeetingJobEnvelope,
      idempotent: true,
      ...callOptions(call),
    });
    const job = response.data.job;
    engine.invalidate(MEETING_SERVICE, id);
    await engine.record(MEETING_SERVICE, id, {
      lastStatus: job.status,
      ...(parsed.data.title === undefined ? {} : { title: parsed.data.title }),
    });
    return job;
  }

  async function remove(id: string, call: MeetingCallOptions = {}): Promise<SuccessResponse> {
    const encoded = checkId(id);
    let retried = false;
    try {
      const response = await http.request({
        method: 'DELETE',
        path: `${api}/jobs/${encoded}`,
        schema: SuccessResponse,
        idempotent: true,
        ...callOptions(call),
        onRetry: () => {
          retried = true;
        },
      });
      await markDeleted(id);
      return response.data;
    } catch (error) {
      // A 404 on a repeat (and only a 404: a 503 is not "gone") means the first attempt did delete it
      // before the connection broke.
      if (retried && NotFoundError.isInstance(error)) {
        await markDeleted(id);
        return { success: true };
      }
      throw error;
    }
  }

  async function markDeleted(id: string): Promise<void> {
    engine.invalidate(MEETING_SERVICE, id);
    await engine.record(MEETING_SERVICE, id, { lastStatus: 'DELETED' });
  }

  async function applyTitle(id: string, title: string | undefined, signal: AbortSignal | undefined) {
    if (title === undefined) return undefined;
    try {
      await update(id, { title }, { signal });
      return undefined;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      // The job exists and is paid for; a failed rename is reported, not allowed to hide the id.
      const reason = error instanceof Error ? error.message : String(error);
      return `The job was created but its title could not be set: ${reason}`;
    }
  }

  async function submit(options: SummarizeOptions): Promise<SubmitResult> {
    // `timeout` bounds the whole call: from here on it is the `deadline`.
    const submitOptions = startCall(options);
    const { signal } = submitOptions;
    const jobOptions = Object.fromEntries(
      Object.entries({
        sourceLanguage: submitOptions.sourceLanguage,
        targetLanguage: submitOptions.targetLanguage,
        asrEngine: submitOptions.asrEngine,
        noiseReduction: submitOptions.noiseReduction,
        minSpeakers: submitOptions.minSpeakers,
        maxSpeakers: submitOptions.maxSpeakers,
      }).filter(([, value]) => value !== undefined),
    ) as Omit<CreateMeetingJobRequest, 'uploadReceipt'>;
    // Validate the job before uploading: a bad option must not cost an upload.
    const checked = { ...jobOptions, uploadReceipt: 'pending' };
    const check = CreateMeetingJobRequest.safeParse(checked);
    if (!check.success) throw validationError('meeting job request', check.error, checked);
    if (submitOptions.title !== undefined && submitOptions.title.trim() === '') {
      throw new ValidationError('Invalid meeting title: it must not be empty. Nothing was sent.', [
        { path: 'title', message: 'empty title' },
      ]);
    }
    signal?.throwIfAborted();

    // Opened and inspected before anything else: a bad recording is refused before any request, and the
    // descriptor is what every step below reads. The upload may outlive this call (the job engine lets it
    // go on past the call's deadline), so the descriptor closes when both are over, whatever the outcome.
    const opened = await openRecording(submitOptions.file);
    const shared = shareOpenedFile(opened, () => openRecording(submitOptions.file));
    try {
      const inspected = await inspectOpenedRecording(opened);
      return await submitOpened(submitOptions, jobOptions, shared, inspected);
    } finally {
      await shared.release();
    }
  }

  async function submitOpened(
    submitOptions: SummarizeOptions,
    jobOptions: Omit<CreateMeetingJobRequest, 'uploadReceipt'>,
    recordingFile: SharedFile,
    inspected: RecordingInfo,
  ): Promise<SubmitResult> {
    const { signal } = submitOptions;
    const { realPath } = recordingFile.opened;
    const fileStats = { size: recordingFile.opened.size, mtimeMs: recordingFile.opened.mtimeMs };
    const fp = fingerprint({
      service: MEETING_SERVICE,
      file: realPath,
      size: fileStats.size,
      mtimeMs: fileStats.mtimeMs,
      ...jobOptions,
    });

    let recording: RecordingInfo | undefined;
    let createdNew = false;
    const started = await engine.start({
      service: MEETING_SERVICE,
      fingerprint: fp,
      title: submitOptions.title ?? null,
      request: { file: realPath, size: fileStats.size, ...jobOptions },
      signal,
      deadline: submitOptions.deadline,
      forceNew: submitOptions.force,
      // Every step can be run again without a second charge (see the module header).
      resendable: true,
      reusable: (status) => !NOT_RESUMABLE.has(status),
      current: jobs.currentStatus,
      submit: async ({ entry, previous, signal: shared, save }) => {
        if (submitOptions.admit) await submitOptions.admit({ recording: inspected, entry, previous, save });
        if (entry?.receipt && receiptUsable(entry.receiptIssuedAt)) {
          try {
            const { id, created } = await create(
              { ...jobOptions, uploadReceipt: entry.receipt },
              { signal: shared, maxRetries: submitOptions.maxRetries },
            );
            createdNew = created;
            return { id, status: 'PENDING' };
          } catch (error) {
            if (shared.aborted) throw error;
            // An expired or rejected receipt (400) means uploading again; anything else is a real failure.
            if (!BadRequestError.isInstance(error)) throw error;
          }
        }
        const uploaded = await recordingFile.use((file) =>
          uploadOpened(file, inspected, {
            signal: shared,
            maxRetries: submitOptions.maxRetries,
            ...(submitOptions.onUploadProgress ? { onProgress: submitOptions.onUploadProgress } : {}),
          }),
        );
        recording = uploaded.recording;
        // Recorded before the job is created: if we crash now, the next call reuses this upload.
        await save({
          receipt: uploaded.uploadReceipt,
          receiptIssuedAt: new Date().toISOString(),
          lastStatus: 'UPLOADED',
        });
        const { id, created } = await create(
          { ...jobOptions, uploadReceipt: uploaded.uploadReceipt },
          { signal: shared, maxRetries: submitOptions.maxRetries },
        );
        createdNew = created;
        return { id, status: 'PENDING' };
      },
    });
    const warning =
      started.resumed || started.joined
        ? undefined
        : await applyTitle(started.id, submitOptions.title, signal);
    return {
      id: started.id,
      status: started.status,
      created: createdNew,
      resumed: started.resumed,
      joined: started.joined,
      ...(recording ? { recording } : {}),
      ...(warning ? { warning } : {}),
    };
  }

  async function summarize(options: MeetingSummarizeOptions): Promise<MeetingJob> {
    const summarizeOptions = startCall(options);
    const { id } = await submit(summarizeOptions);
    const job = await jobs.wait(id, {
      ...(summarizeOptions.signal ? { signal: summarizeOptions.signal } : {}),
      maxRetries: summarizeOptions.maxRetries,
      timeoutMs: waitTimeoutMs(
        { timeoutMs: summarizeOptions.timeoutMs, deadline: summarizeOptions.deadline },
        MEETING_WAIT_TIMEOUT_MS,
      ),
      ...(summarizeOptions.onProgress ? { onProgress: summarizeOptions.onProgress } : {}),
    });
    if (job.status === 'FAILED' || job.status === 'CANCELLED') {
      throw new JobFailedError({
        service: MEETING_SERVICE,
        jobId: id,
        status: job.status,
        errorMessage: job.errorMessage ?? null,
      });
    }
    return job;
  }

  return {
    upload,
    create,
    list,
    retrieve: jobs.retrieve,
    cancel: (id, call = {}) => act(id, 'cancel', {}, call),
    retry: (id, call = {}) => act(id, 'retry', {}, call),
    resummarize: (id, call = {}) => act(id, 'resummarize', {}, call),
    retranslate: async (id, request, call = {}) => {
      const retranslate = { targetLanguage: request?.targetLanguage };
      const parsed = RetranslateRequest.safeParse(retranslate);
      if (!parsed.success) throw validationError('retranslate request', parsed.error, retranslate);
      return act(id, 'retranslate', parsed.data, { signal: call.signal ?? request.signal });
    },
    update,
    delete: remove,
    submit,
    poll: jobs.poll,
    wait: jobs.wait,
    summarize,
  };
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

function receiptUsable(issuedAt: string | null | undefined): boolean {
  if (!issuedAt) return false;
  const issued = Date.parse(issuedAt);
  return (
    Number.isFinite(issued) && Date.now() - issued < MEETING_RECEIPT_LIFETIME_MS - RECEIPT_SAFETY_MARGIN_MS
  );
}
