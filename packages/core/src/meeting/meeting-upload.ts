/**
 * Uploading a recording to the meeting service. The recording is opened once (confined when the client
 * has a FileAccess) and inspected before any request; every later read (the upload and a retried upload)
 * goes through that descriptor, never through the path again, so a path swapped meanwhile changes nothing.
 */
import { MEETING_API_PATH } from '../constants/service-table.js';
import { UploadResponse } from '../contracts/meeting.js';
import { type OpenedFile, openRegularFile } from '../files/open-verified-file.js';
import { startCall } from '../http/call-options.js';
import {
  assertWithinUploadLimit,
  inspectOpenedRecording,
  type RecordingInfo,
} from '../media/inspect-recording.js';
import { createMultipartFileBody } from '../upload/create-multipart-file-body.js';
import type { MeetingDeps } from './meeting-deps.js';
import { listJobs } from './meeting-requests.js';
import type { UploadOptions, UploadResult } from './meeting-types.js';

/** How long the service's `maxUploadBytes` is trusted before it is read again. */
const LIMITS_TTL_MS = 10 * 60 * 1000;

export async function uploadRecording(
  deps: MeetingDeps,
  file: string,
  options: UploadOptions = {},
): Promise<UploadResult> {
  const call = startCall(options);
  const opened = await openRecording(deps, file);
  try {
    // Inspected before any request: a recording that is bad locally costs nothing, not even the lookup.
    const recording = await inspectOpenedRecording(opened);
    return await uploadOpened(deps, { opened, recording, call });
  } finally {
    await opened.handle.close();
  }
}

/** Opens the recording, confined to the allowed directories when the client has a FileAccess. */
export async function openRecording(deps: MeetingDeps, file: string): Promise<OpenedFile> {
  return deps.files ? deps.files.openReadable(file) : openRegularFile(file);
}

/**
 * Uploads an opened, inspected recording. The limit lookup is the only request before the upload; the
 * body (and a retry's) is read from the descriptor.
 */
export async function uploadOpened(
  deps: MeetingDeps,
  upload: { opened: OpenedFile; recording: RecordingInfo; call: UploadOptions },
): Promise<UploadResult> {
  const { opened, recording, call } = upload;
  const maxBytes = await maxUploadBytes(deps, call.signal);
  if (maxBytes !== undefined) assertWithinUploadLimit(recording, maxBytes);
  const response = await deps.http.request({
    method: 'POST',
    path: `${MEETING_API_PATH}/uploads`,
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

/** The service's upload limit, read once in a while; unknown when the list cannot be read. */
async function maxUploadBytes(
  deps: MeetingDeps,
  signal: AbortSignal | undefined,
): Promise<number | undefined> {
  if (deps.uploadLimit && Date.now() - deps.uploadLimit.readAt < LIMITS_TTL_MS) {
    return deps.uploadLimit.maxUploadBytes;
  }
  try {
    await listJobs(deps, { signal });
  } catch {
    if (signal?.aborted) throw signal.reason;
    // Not fatal: the server enforces its limit with a 413 anyway.
    return undefined;
  }
  return deps.uploadLimit?.maxUploadBytes;
}

/** Upload time budget: at least 2 min, plus enough for a slow (128 KB/s) uplink. */
function uploadTimeoutMs(size: number, base: number): number {
  return Math.max(base, 120_000 + Math.ceil(size / 128));
}
