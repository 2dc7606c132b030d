/**
 * Submitting a recording for a summary, so that nothing paid for is lost or done twice: the submission is
 * claimed in the job engine before the upload, the receipt is recorded before the job is created, the job
 * id right after. `summarize` is `submit` and then a wait for the job.
 *
 * Where the spec is silent, the conservative choice (tested):
 * - an upload answered 503 ("authentication or cleanup unavailable") stored nothing, so it is retried
 *   with back-off like a refused connection; any other failure after the upload may have arrived is not;
 * - a submission interrupted in any step may be run again: an upload alone is not charged, and a job
 *   created from a recorded receipt answers 200 with the existing job instead of creating a second one.
 */
import { MEETING_RECEIPT_LIFETIME_MS } from '../constants/meeting-constants.js';
import { MEETING_SERVICE } from '../constants/service-table.js';
import { CreateMeetingJobRequest, type MeetingJob } from '../contracts/meeting.js';
import { BadRequestError } from '../errors/api-error.js';
import { JobFailedError, ValidationError } from '../errors/polymodal-error.js';
import { type SharedFile, shareOpenedFile } from '../files/share-opened-file.js';
import { startCall, waitTimeoutMs } from '../http/call-options.js';
import type { StartJobContext } from '../jobs/job-engine.js';
import { fingerprint } from '../ledger/fingerprint.js';
import { inspectOpenedRecording, type RecordingInfo } from '../media/inspect-recording.js';
import { MEETING_WAIT_TIMEOUT_MS, type MeetingDeps, meetingValidationError } from './meeting-deps.js';
import { createJob, updateJob } from './meeting-requests.js';
import type {
  MeetingJobOptions,
  MeetingSummarizeOptions,
  SubmitResult,
  SummarizeOptions,
} from './meeting-types.js';
import { openRecording, uploadOpened } from './meeting-upload.js';

/** A recorded receipt is reused only while it has this much life left. */
const RECEIPT_SAFETY_MARGIN_MS = 5 * 60 * 1000;
/** Statuses after which a ledger entry is not resumed but submitted anew. */
const NOT_RESUMABLE = new Set(['FAILED', 'CANCELLED', 'DELETED']);

/** One submission under way: its options, the job fields, the opened recording and what it holds. */
interface Submission {
  options: SummarizeOptions;
  jobOptions: MeetingJobOptions;
  recordingFile: SharedFile;
  inspected: RecordingInfo;
}

export async function submitRecording(deps: MeetingDeps, options: SummarizeOptions): Promise<SubmitResult> {
  // `timeout` bounds the whole call: from here on it is the `deadline`.
  const submitOptions = startCall(options);
  const jobOptions = checkedJobOptions(submitOptions);
  submitOptions.signal?.throwIfAborted();

  // Opened and inspected before anything else: a bad recording is refused before any request, and the
  // descriptor is what every step below reads. The upload may outlive this call (the job engine lets it
  // go on past the call's deadline), so the descriptor closes when both are over, whatever the outcome.
  const opened = await openRecording(deps, submitOptions.file);
  const shared = shareOpenedFile(opened, () => openRecording(deps, submitOptions.file));
  try {
    const inspected = await inspectOpenedRecording(opened);
    return await submitOpened(deps, {
      options: submitOptions,
      jobOptions,
      recordingFile: shared,
      inspected,
    });
  } finally {
    await shared.release();
  }
}

/** The job fields given, checked before uploading: a bad option must not cost an upload. */
function checkedJobOptions(options: SummarizeOptions): MeetingJobOptions {
  const jobOptions = Object.fromEntries(
    Object.entries({
      sourceLanguage: options.sourceLanguage,
      targetLanguage: options.targetLanguage,
      asrEngine: options.asrEngine,
      noiseReduction: options.noiseReduction,
      minSpeakers: options.minSpeakers,
      maxSpeakers: options.maxSpeakers,
    }).filter(([, value]) => value !== undefined),
  ) as MeetingJobOptions;
  const checked = { ...jobOptions, uploadReceipt: 'pending' };
  const check = CreateMeetingJobRequest.safeParse(checked);
  if (!check.success) throw meetingValidationError('meeting job request', check.error, checked);
  if (options.title !== undefined && options.title.trim() === '') {
    throw new ValidationError('Invalid meeting title: it must not be empty. Nothing was sent.', [
      { path: 'title', message: 'empty title' },
    ]);
  }
  return jobOptions;
}

async function submitOpened(deps: MeetingDeps, submission: Submission): Promise<SubmitResult> {
  const { options, jobOptions, recordingFile } = submission;
  const { realPath, size, mtimeMs } = recordingFile.opened;
  const fp = fingerprint({ service: MEETING_SERVICE, file: realPath, size, mtimeMs, ...jobOptions });
  const sent: { recording?: RecordingInfo; created: boolean } = { created: false };
  const started = await deps.engine.start({
    service: MEETING_SERVICE,
    fingerprint: fp,
    title: options.title ?? null,
    request: { file: realPath, size, ...jobOptions },
    signal: options.signal,
    deadline: options.deadline,
    forceNew: options.force,
    // Every step can be run again without a second charge (see the module header).
    resendable: true,
    reusable: (status) => !NOT_RESUMABLE.has(status),
    current: deps.jobs.currentStatus,
    submit: (claim) => sendSubmission(deps, submission, claim, sent),
  });
  const warning = started.resumed || started.joined ? undefined : await applyTitle(deps, started.id, options);
  return {
    id: started.id,
    status: started.status,
    created: sent.created,
    resumed: started.resumed,
    joined: started.joined,
    ...(sent.recording ? { recording: sent.recording } : {}),
    ...(warning ? { warning } : {}),
  };
}

/**
 * The paid part, run once the submission is claimed: a job from the recorded receipt while it is still
 * usable, else an upload (its receipt recorded at once) and a job from it.
 */
async function sendSubmission(
  deps: MeetingDeps,
  submission: Submission,
  claim: StartJobContext,
  sent: { recording?: RecordingInfo; created: boolean },
): Promise<{ id: string; status: string }> {
  const { options, jobOptions, inspected } = submission;
  const { entry, previous, signal, save } = claim;
  if (options.admit) await options.admit({ recording: inspected, entry, previous, save });
  const call = { signal, maxRetries: options.maxRetries };
  if (entry?.receipt && receiptUsable(entry.receiptIssuedAt)) {
    try {
      const { id, created } = await createJob(deps, { ...jobOptions, uploadReceipt: entry.receipt }, call);
      sent.created = created;
      return { id, status: 'PENDING' };
    } catch (error) {
      if (signal.aborted) throw error;
      // An expired or rejected receipt (400) means uploading again; anything else is a real failure.
      if (!BadRequestError.isInstance(error)) throw error;
    }
  }
  const uploaded = await submission.recordingFile.use((file) =>
    uploadOpened(deps, {
      opened: file,
      recording: inspected,
      call: { ...call, ...(options.onUploadProgress ? { onProgress: options.onUploadProgress } : {}) },
    }),
  );
  sent.recording = uploaded.recording;
  // Recorded before the job is created: if we crash now, the next call reuses this upload.
  await save({
    receipt: uploaded.uploadReceipt,
    receiptIssuedAt: new Date().toISOString(),
    lastStatus: 'UPLOADED',
  });
  const { id, created } = await createJob(
    deps,
    { ...jobOptions, uploadReceipt: uploaded.uploadReceipt },
    call,
  );
  sent.created = created;
  return { id, status: 'PENDING' };
}

/** Sets the title of a job just created; a failure is a warning, since the job exists and is paid for. */
async function applyTitle(
  deps: MeetingDeps,
  id: string,
  options: { title?: string | undefined; signal?: AbortSignal | undefined },
): Promise<string | undefined> {
  const { title, signal } = options;
  if (title === undefined) return undefined;
  try {
    await updateJob(deps, id, { title }, { signal });
    return undefined;
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    // A failed rename is reported, not allowed to hide the id.
    const reason = error instanceof Error ? error.message : String(error);
    return `The job was created but its title could not be set: ${reason}`;
  }
}

function receiptUsable(issuedAt: string | null | undefined): boolean {
  if (!issuedAt) return false;
  const issued = Date.parse(issuedAt);
  return (
    Number.isFinite(issued) && Date.now() - issued < MEETING_RECEIPT_LIFETIME_MS - RECEIPT_SAFETY_MARGIN_MS
  );
}

/** `submit`, then a wait for the job; a failed or cancelled job → JobFailedError. */
export async function summarizeRecording(
  deps: MeetingDeps,
  options: MeetingSummarizeOptions,
): Promise<MeetingJob> {
  const summarizeOptions = startCall(options);
  const { id } = await submitRecording(deps, summarizeOptions);
  const job = await deps.jobs.wait(id, {
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
