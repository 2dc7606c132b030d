/**
 * The meeting client's public shape: its methods, their options and their results. Kept apart from the
 * code so that every module of the client (requests, upload, submission) reads the same declarations.
 */
import type { MeetingAsrEngine, MeetingLanguage } from '../constants/meeting-constants.js';
import type {
  CreateMeetingJobRequest,
  MeetingJob,
  MeetingJobList,
  SuccessResponse,
} from '../contracts/meeting.js';
import type { FileAccess } from '../files/create-file-access.js';
import type { CallOptions } from '../http/call-options.js';
import type { HttpClient } from '../http/http-client.js';
import type { JobEngine, SubmissionPatch } from '../jobs/job-engine.js';
import type { JobPollOptions, JobWaitOptions } from '../jobs/job-resource.js';
import type { PollOutcome } from '../jobs/poll-job.js';
import type { LedgerEntry } from '../ledger/create-job-ledger.js';
import type { RecordingInfo } from '../media/inspect-recording.js';

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

/** What `update` may change. */
export interface MeetingChanges {
  title?: string;
  speakerNames?: Record<string, string>;
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

/** The job fields a submission sends besides the upload receipt. */
export type MeetingJobOptions = Omit<CreateMeetingJobRequest, 'uploadReceipt'>;

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
  update(id: string, changes: MeetingChanges, options?: MeetingCallOptions): Promise<MeetingJob>;
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
