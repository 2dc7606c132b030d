/**
 * `POST /jobs`: a flashcards job from an uploaded video. The multipart body is streamed to disk; the video
 * is recognised by extension or signature and its duration read from the container (estimated from the
 * size when unreadable). The file is kept only when a new job owns it.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { sniffVideoContainer } from '@polymodal/core/media';
import { parseFile } from 'music-metadata';
import type { RequestContext } from '../../framework/request-context.js';
import type { SandboxResponse } from '../../framework/sandbox-response.js';
import { type ReceivedFormFile, receiveForm } from '../../media/receive-form.js';
import { ESTIMATE_BYTES_PER_SECOND, type VideoSource } from './flashcard-job.js';
import { OPTION_FIELDS, parseFlashcardOptions } from './flashcard-options.js';
import { flashcardsError, rejectUnknown } from './flashcards-errors.js';
import { admit, checkDuration, type FlashcardsState } from './flashcards-state.js';
import { startJob } from './start-flashcard-job.js';

export const VIDEO_EXTENSIONS = ['.mp4', '.mov', '.mkv', '.webm', '.m4v', '.avi', '.mpeg', '.mpg'];
/** Multipart framing allowance on top of maxUploadBytes before a Content-Length alone proves too large. */
const MULTIPART_SLACK_BYTES = 1024 * 1024;

function tooLarge(state: FlashcardsState) {
  return flashcardsError(
    413,
    'file_too_large',
    `upload too large: the limit is ${state.limits.maxUploadBytes} bytes`,
    { headers: { connection: 'close' } },
  );
}

/** The uploaded video as a job source; a file that is not a video is a 400, one too long a 413. */
async function uploadSource(
  state: FlashcardsState,
  file: ReceivedFormFile | undefined,
): Promise<VideoSource> {
  if (!file) {
    throw flashcardsError(
      400,
      'invalid_request',
      'video_file is required: send the video in the multipart field "video_file"',
    );
  }
  const extension = path.extname(file.filename ?? '').toLowerCase();
  if (!VIDEO_EXTENSIONS.includes(extension) && !sniffVideoContainer(file.head)) {
    throw flashcardsError(
      400,
      'unsupported_format',
      'unsupported video format: upload MP4, MOV, MKV, WEBM, M4V, AVI, MPEG or MPG',
    );
  }
  let duration: number | undefined;
  try {
    duration = (await parseFile(file.path, { skipCovers: true, duration: true })).format.duration;
  } catch {
    // Unreadable container: estimated below.
  }
  const durationSeconds =
    duration && Number.isFinite(duration) && duration > 0
      ? duration
      : Math.max(1, file.size / ESTIMATE_BYTES_PER_SECOND);
  checkDuration(state, durationSeconds);
  const name = file.filename ?? 'video.mp4';
  return {
    kind: 'upload',
    fingerprint: `upload:${file.sha256}`,
    title: path.basename(name, path.extname(name)) || 'Untitled video',
    durationSeconds: Math.round(durationSeconds * 1000) / 1000,
    sourceUrl: null,
    file: { path: file.path, size: file.size, name: path.basename(name) },
    marker: name,
  };
}

export async function startFromUpload(
  state: FlashcardsState,
  request: RequestContext,
): Promise<SandboxResponse> {
  const caller = admit(state, request);
  const { maxUploadBytes } = state.limits;
  const declared = Number(request.request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxUploadBytes + MULTIPART_SLACK_BYTES) throw tooLarge(state);
  const filePath = path.join(state.dataDir, `vf_upload_${randomBytes(9).toString('hex')}`);
  const form = await receiveForm({
    request: request.request,
    fileField: 'video_file',
    filePath,
    maxBytes: maxUploadBytes,
  });
  let kept = false;
  try {
    if (form.tooLarge) throw tooLarge(state);
    const fields = Object.fromEntries(form.fields);
    rejectUnknown(fields, OPTION_FIELDS);
    const options = parseFlashcardOptions(fields, true);
    const source = await uploadSource(state, form.file);
    const answer = startJob(state, { caller, options, source });
    kept = answer.status === 202;
    return answer;
  } finally {
    if (!kept) await rm(filePath, { force: true });
  }
}
