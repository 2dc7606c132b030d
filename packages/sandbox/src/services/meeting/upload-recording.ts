/**
 * `POST /uploads`: a recording streamed to disk, probed for its length (and an embedded script), and
 * answered with a signed receipt that the job route accepts for two hours.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { MEETING_RECEIPT_LIFETIME_MS } from '@polymodal/core/constants';
import { HttpError } from '../../framework/http-error.js';
import type { RequestContext } from '../../framework/request-context.js';
import { json, type SandboxResponse } from '../../framework/sandbox-response.js';
import { authenticate, type MeetingServiceState } from './meeting-service-state.js';
import { probeRecording, UnsupportedFormatError } from './probe-recording.js';
import { receiveUpload } from './receive-upload.js';

/** Multipart framing allowance on top of maxUploadBytes before a Content-Length alone proves too large. */
const MULTIPART_SLACK_BYTES = 1024 * 1024;

const tooLarge = (maxUploadBytes: number) =>
  new HttpError(413, `upload too large: the limit is ${maxUploadBytes} bytes`, {
    headers: { connection: 'close' },
  });

/** Probes the stored file; a file that is not a recording, or one too long, is removed and refused. */
async function probeStored(
  state: MeetingServiceState,
  file: { path: string; filename: string | undefined; size: number },
) {
  const { maxDurationSeconds } = state.config.limits;
  let probe: Awaited<ReturnType<typeof probeRecording>>;
  try {
    probe = await probeRecording({ filePath: file.path, filename: file.filename, size: file.size });
  } catch (error) {
    await rm(file.path, { force: true });
    if (error instanceof UnsupportedFormatError) throw new HttpError(400, error.message);
    throw error;
  }
  if (probe.durationSeconds > maxDurationSeconds) {
    await rm(file.path, { force: true });
    throw new HttpError(
      413,
      `recording too long: ${Math.round(probe.durationSeconds)} s; the limit is ${maxDurationSeconds} s (2 hours)`,
    );
  }
  return probe;
}

export async function uploadRecording(
  state: MeetingServiceState,
  request: RequestContext,
): Promise<SandboxResponse> {
  const { user } = authenticate(state, request);
  const { maxUploadBytes } = state.config.limits;
  const declared = Number(request.request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxUploadBytes + MULTIPART_SLACK_BYTES) {
    throw tooLarge(maxUploadBytes);
  }
  const id = `upl_${randomBytes(12).toString('hex')}`;
  const filePath = path.join(state.dataDir, `${id}.upload`);
  const received = await receiveUpload({
    request: request.request,
    field: 'file',
    filePath,
    maxBytes: maxUploadBytes,
  });
  if (received.kind === 'missing')
    throw new HttpError(400, 'missing file: send the recording in the multipart field "file"');
  if (received.kind === 'too-large') throw tooLarge(maxUploadBytes);
  const { file } = received;
  const probe = await probeStored(state, { path: filePath, filename: file.filename, size: file.size });
  const issuedAt = state.clock.now();
  state.uploads.set(id, {
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
  state.counters.increment('uploads', user.id);
  return json(201, {
    uploadReceipt: state.signer.sign({ userId: user.id, site: user.site, uploadId: id, issuedAt }),
    uploadId: id,
    sizeBytes: file.size,
    durationSeconds: probe.durationSeconds,
    expiresAt: new Date(issuedAt + MEETING_RECEIPT_LIFETIME_MS).toISOString(),
  });
}
