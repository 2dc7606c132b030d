/**
 * Client of the meeting summary service (`/api/conference-summary/v1`): typed methods over the HTTP
 * chokepoint, plus `submit`/`wait`/`summarize`, which use the job ledger so that nothing paid for is
 * lost or done twice (a receipt is recorded before the job is created, the job id right after).
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import {
  CreateJobResponse,
  CreateMeetingJobRequest,
  isMeetingTerminal,
  MEETING_API_PATH,
  MEETING_POLL_INTERVAL_MS,
  MEETING_RECEIPT_LIFETIME_MS,
  type MeetingAction,
  type MeetingAsrEngine,
  type MeetingJob,
  MeetingJobEnvelope,
  MeetingJobList,
  MeetingLanguage,
  SuccessResponse,
  UpdateMeetingRequest,
  UploadResponse,
} from '../contracts/index.js';
import { ApiError, JobFailedError, NotFoundError, ValidationError } from '../errors/index.js';
import type { FileAccess } from '../files/index.js';
import type { HttpClient } from '../http/index.js';
import type { JobLedger } from '../ledger/index.js';
import { fingerprint } from '../ledger/index.js';
import { pollUntil } from '../polling/index.js';
import { createMultipartFileBody, inspectRecording, type RecordingInfo } from '../upload/index.js';

export const MEETING_SERVICE = 'meeting';
/** The reference client gives up waiting after 4 hours (the job keeps running). */
export const MEETING_WAIT_TIMEOUT_MS = 4 * 60 * 60 * 1000;
/** A recorded receipt is reused only while it has this much life left. */
const RECEIPT_SAFETY_MARGIN_MS = 5 * 60 * 1000;
/** How long the service's `maxUploadBytes` is trusted before it is read again. */
const LIMITS_TTL_MS = 10 * 60 * 1000;
/** Statuses after which a ledger entry is not resumed but submitted anew. */
const NOT_RESUMABLE = new Set(['FAILED', 'CANCELLED', 'DELETED']);
const RetranslateRequest = z.strictObject({ targetLanguage: MeetingLanguage });

export interface CallOptions {
  signal?: AbortSignal;
}

export interface UploadOptions extends CallOptions {
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

export interface SummarizeOptions {
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
  onUploadProgress?: (sentBytes: number, totalBytes: number) => void;
  /** Submit a new job even when the ledger holds one for the same file and options. */
  force?: boolean;
}

export interface SubmitResult {
  id: string;
  created: boolean;
  /** True when an earlier job (or recorded receipt) was reused: nothing was uploaded again. */
  resumed: boolean;
  /** Present when the file was inspected and uploaded in this call. */
  recording?: RecordingInfo;
  /** Set when the job exists but a secondary step (setting the title) failed. */
  warning?: string;
}

export interface WaitOptions extends CallOptions {
  /** Default 4 hours. */
  timeoutMs?: number;
  /** Default: the client's poll interval (5 s). */
  intervalMs?: number;
  onProgress?: (job: MeetingJob) => void;
}

export type MeetingSummarizeOptions = SummarizeOptions & {
  timeoutMs?: number;
  onProgress?: (job: MeetingJob) => void;
};

export interface MeetingClient {
  upload(file: string, options?: UploadOptions): Promise<UploadResult>;
  create(request: CreateMeetingJobRequest, options?: CallOptions): Promise<CreateResult>;
  list(options?: CallOptions): Promise<MeetingJobList>;
  retrieve(id: string, options?: CallOptions): Promise<MeetingJob>;
  cancel(id: string, options?: CallOptions): Promise<SuccessResponse>;
  retry(id: string, options?: CallOptions): Promise<SuccessResponse>;
  resummarize(id: string, options?: CallOptions): Promise<SuccessResponse>;
  retranslate(
    id: string,
    request: { targetLanguage: MeetingLanguage; signal?: AbortSignal },
    options?: CallOptions,
  ): Promise<SuccessResponse>;
  update(
    id: string,
    changes: { title?: string; speakerNames?: Record<string, string> },
    options?: CallOptions,
  ): Promise<MeetingJob>;
  delete(id: string, options?: CallOptions): Promise<SuccessResponse>;
  submit(options: SummarizeOptions): Promise<SubmitResult>;
  wait(id: string, options?: WaitOptions): Promise<MeetingJob>;
  summarize(options: MeetingSummarizeOptions): Promise<MeetingJob>;
}

export interface MeetingClientOptions {
  /** Created with `auth: 'bearer'`: the meeting service authenticates with `Authorization: Bearer`. */
  http: HttpClient;
  ledger?: JobLedger;
  files?: FileAccess;
  pollIntervalMs?: number;
}

function validationError(what: string, error: z.ZodError): ValidationError {
  const issues = error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
  const detail = issues
    .map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message))
    .join('; ');
  return new ValidationError(`Invalid ${what}: ${detail}. Fix these fields; nothing was sent.`, issues);
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
  const { http, ledger, files } = options;
  const pollIntervalMs = options.pollIntervalMs ?? MEETING_POLL_INTERVAL_MS;
  const api = MEETING_API_PATH;
  let limits: { maxUploadBytes: number | undefined; readAt: number } | undefined;

  async function list(call: CallOptions = {}): Promise<MeetingJobList> {
    const response = await http.request({
      method: 'GET',
      path: `${api}/jobs`,
      schema: MeetingJobList,
      idempotent: true,
      signal: call.signal,
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

  async function confine(file: string): Promise<string> {
    return files ? files.resolveReadable(file) : path.resolve(file);
  }

  async function upload(file: string, call: UploadOptions = {}): Promise<UploadResult> {
    const realPath = await confine(file);
    const maxBytes = await maxUploadBytes(call.signal);
    const recording = await inspectRecording(realPath, maxBytes === undefined ? {} : { maxBytes });
    const response = await http.request({
      method: 'POST',
      path: `${api}/uploads`,
      multipart: () =>
        createMultipartFileBody({
          field: 'file',
          path: recording.path,
          filename: recording.name,
          contentType: recording.contentType,
          ...(call.onProgress ? { onProgress: call.onProgress } : {}),
        }),
      schema: UploadResponse,
      // Every upload creates a new recording, so it is repeated only when it provably never arrived.
      idempotent: false,
      signal: call.signal,
      timeoutMs: uploadTimeoutMs(recording.size, 60_000),
    });
    return { uploadReceipt: response.data.uploadReceipt, recording };
  }

  async function create(request: CreateMeetingJobRequest, call: CallOptions = {}): Promise<CreateResult> {
    const parsed = CreateMeetingJobRequest.safeParse(request);
    if (!parsed.success) throw validationError('meeting job request', parsed.error);
    const response = await http.request({
      method: 'POST',
      path: `${api}/jobs`,
      json: parsed.data,
      schema: CreateJobResponse,
      // Safe to repeat: the same receipt yields the existing job (HTTP 200) instead of a second one.
      idempotent: true,
      signal: call.signal,
    });
    return { id: response.data.id, created: response.status === 201 };
  }

  async function retrieve(id: string, call: CallOptions = {}): Promise<MeetingJob> {
    const response = await http.request({
      method: 'GET',
      path: `${api}/jobs/${checkId(id)}`,
      schema: MeetingJobEnvelope,
      idempotent: true,
      signal: call.signal,
    });
    return response.data.job;
  }

  async function act(
    id: string,
    action: MeetingAction,
    extra: Record<string, unknown>,
    call: CallOptions,
  ): Promise<SuccessResponse> {
    const response = await http.request({
      method: 'POST',
      path: `${api}/jobs/${checkId(id)}`,
      json: { action, ...extra },
      schema: SuccessResponse,
      // Actions start paid or destructive work; repeated only when the server provably did not act.
      idempotent: false,
      signal: call.signal,
    });
    return response.data;
  }

  async function update(
    id: string,
    changes: { title?: string; speakerNames?: Record<string, string> },
    call: CallOptions = {},
  ): Promise<MeetingJob> {
    const encoded = checkId(id);
    const parsed = UpdateMeetingRequest.safeParse(changes);
    if (!parsed.success) throw validationError('meeting update', parsed.error);
    const response = await http.request({
      method: 'PATCH',
      path: `${api}/jobs/${encoded}`,
      json: parsed.data,
      schema: MeetingJobEnvelope,
      idempotent: true,
      signal: call.signal,
    });
    if (parsed.data.title !== undefined) {
      await ledger?.updateById(MEETING_SERVICE, id, { title: parsed.data.title }).catch(() => undefined);
    }
    return response.data.job;
  }

  async function remove(id: string, call: CallOptions = {}): Promise<SuccessResponse> {
    const encoded = checkId(id);
    let retried = false;
    try {
      const response = await http.request({
        method: 'DELETE',
        path: `${api}/jobs/${encoded}`,
        schema: SuccessResponse,
        idempotent: true,
        signal: call.signal,
        onRetry: () => {
          retried = true;
        },
      });
      await recordStatus(id, 'DELETED');
      return response.data;
    } catch (error) {
      // A 404 on a repeat means the first attempt did delete it before the connection broke.
      if (retried && NotFoundError.isInstance(error)) {
        await recordStatus(id, 'DELETED');
        return { success: true };
      }
      throw error;
    }
  }

  async function recordStatus(id: string, status: string): Promise<void> {
    // The ledger is a convenience for resuming; failing to write it must not fail the operation.
    await ledger?.updateById(MEETING_SERVICE, id, { lastStatus: status }).catch(() => undefined);
  }

  async function wait(id: string, call: WaitOptions = {}): Promise<MeetingJob> {
    checkId(id);
    let lastStatus: string | undefined;
    return pollUntil({
      retrieve: async (signal) => {
        const job = await retrieve(id, { signal });
        if (job.status !== lastStatus) {
          lastStatus = job.status;
          await recordStatus(id, job.status);
        }
        return job;
      },
      isDone: (job) => isMeetingTerminal(job.status),
      intervalMs: call.intervalMs ?? pollIntervalMs,
      timeoutMs: call.timeoutMs ?? MEETING_WAIT_TIMEOUT_MS,
      ...(call.signal ? { signal: call.signal } : {}),
      ...(call.onProgress ? { onProgress: call.onProgress } : {}),
      service: MEETING_SERVICE,
      jobId: id,
      describeStatus: (job) => job.status,
    });
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

  async function submit(submitOptions: SummarizeOptions): Promise<SubmitResult> {
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
    const check = CreateMeetingJobRequest.safeParse({ ...jobOptions, uploadReceipt: 'pending' });
    if (!check.success) throw validationError('meeting job request', check.error);
    if (submitOptions.title !== undefined && submitOptions.title.trim() === '') {
      throw new ValidationError('Invalid meeting title: it must not be empty. Nothing was sent.', [
        { path: 'title', message: 'empty title' },
      ]);
    }
    signal?.throwIfAborted();

    const realPath = await confine(submitOptions.file);
    let fileStats: { size: number; mtimeMs: number };
    try {
      fileStats = await stat(realPath);
    } catch {
      // inspectRecording gives the precise, actionable error.
      await inspectRecording(realPath);
      throw new ValidationError(`${realPath} cannot be read.`, [{ path: 'file', message: 'unreadable' }]);
    }
    const fp = fingerprint({
      service: MEETING_SERVICE,
      file: realPath,
      size: fileStats.size,
      mtimeMs: fileStats.mtimeMs,
      ...jobOptions,
    });

    if (ledger && !submitOptions.force) {
      const entry = await ledger.findByFingerprint(MEETING_SERVICE, fp);
      if (entry?.id && !NOT_RESUMABLE.has(entry.lastStatus)) {
        const resumed = await confirmExisting(entry.id, signal);
        if (resumed) return { id: entry.id, created: false, resumed: true };
      } else if (entry && !entry.id && entry.receipt && receiptUsable(entry.receiptIssuedAt)) {
        try {
          const { id, created } = await create({ ...jobOptions, uploadReceipt: entry.receipt }, { signal });
          await ledger.update(MEETING_SERVICE, fp, { id, lastStatus: 'PENDING' });
          const warning = await applyTitle(id, submitOptions.title, signal);
          return { id, created, resumed: true, ...(warning ? { warning } : {}) };
        } catch (error) {
          if (signal?.aborted) throw signal.reason;
          // An expired or rejected receipt (400) means uploading again; anything else is a real failure.
          if (!(ApiError.isInstance(error) && error.status === 400)) throw error;
        }
      }
    }

    const { uploadReceipt, recording } = await upload(realPath, {
      ...(signal ? { signal } : {}),
      ...(submitOptions.onUploadProgress ? { onProgress: submitOptions.onUploadProgress } : {}),
    });
    // Recorded before the job is created: if we crash now, the next call reuses this paid-for upload.
    await ledger?.record({
      service: MEETING_SERVICE,
      fingerprint: fp,
      id: null,
      receipt: uploadReceipt,
      receiptIssuedAt: new Date().toISOString(),
      lastStatus: 'UPLOADED',
      title: submitOptions.title ?? null,
      request: { file: realPath, size: recording.size, ...jobOptions },
    });
    const { id, created } = await create({ ...jobOptions, uploadReceipt }, { signal });
    await ledger?.update(MEETING_SERVICE, fp, { id, lastStatus: 'PENDING' });
    const warning = await applyTitle(id, submitOptions.title, signal);
    return { id, created, resumed: false, recording, ...(warning ? { warning } : {}) };
  }

  /** Whether a recorded job can be resumed: it still exists and has not failed or been cancelled. */
  async function confirmExisting(id: string, signal: AbortSignal | undefined): Promise<boolean> {
    try {
      const job = await retrieve(id, { signal });
      await recordStatus(id, job.status);
      return !NOT_RESUMABLE.has(job.status);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (NotFoundError.isInstance(error)) {
        await recordStatus(id, 'DELETED');
        return false;
      }
      // The platform is unreachable right now; the recorded job is still the right answer.
      return true;
    }
  }

  async function summarize(summarizeOptions: MeetingSummarizeOptions): Promise<MeetingJob> {
    const { id } = await submit(summarizeOptions);
    const job = await wait(id, {
      ...(summarizeOptions.signal ? { signal: summarizeOptions.signal } : {}),
      timeoutMs: summarizeOptions.timeoutMs ?? MEETING_WAIT_TIMEOUT_MS,
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
    retrieve,
    cancel: (id, call = {}) => act(id, 'cancel', {}, call),
    retry: (id, call = {}) => act(id, 'retry', {}, call),
    resummarize: (id, call = {}) => act(id, 'resummarize', {}, call),
    retranslate: async (id, request, call = {}) => {
      const parsed = RetranslateRequest.safeParse({ targetLanguage: request?.targetLanguage });
      if (!parsed.success) throw validationError('retranslate request', parsed.error);
      return act(id, 'retranslate', parsed.data, { signal: call.signal ?? request.signal });
    },
    update,
    delete: remove,
    submit,
    wait,
    summarize,
  };
}

function receiptUsable(issuedAt: string | undefined): boolean {
  if (!issuedAt) return false;
  const issued = Date.parse(issuedAt);
  return (
    Number.isFinite(issued) && Date.now() - issued < MEETING_RECEIPT_LIFETIME_MS - RECEIPT_SAFETY_MARGIN_MS
  );
}
