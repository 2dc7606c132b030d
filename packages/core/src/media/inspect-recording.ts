/**
 * Local checks of a recording before any byte is sent: the upload is slow and the job costs credits, so
 * every problem that can be seen locally is reported locally, with what to do about it. The checks run on
 * an opened descriptor (`inspectOpenedRecording`), the one the upload then reads, so what was checked is
 * what is sent; `inspectRecording` opens a path itself for callers that only want to look.
 */
import path from 'node:path';
import { MEETING_EXTENSIONS, MEETING_MAX_DURATION_SECONDS } from '../constants/meeting-constants.js';
import { ValidationError } from '../errors/polymodal-error.js';
import { type OpenedFile, openRegularFile, readAt } from '../files/open-verified-file.js';
import {
  describeSignature,
  matchesSignature,
  RECORDING_CONTAINERS,
  RECORDING_CONTENT_TYPES,
  type RecordingContainer,
  SIGNATURE_BYTES,
} from './recording-formats.js';
import { validateRecordingContent } from './validate-recording-content.js';

export interface InspectRecordingOptions {
  /** Default: the service limit of 2 hours. */
  maxDurationSeconds?: number;
  /** Upload size limit (the service's `maxUploadBytes`), when known. */
  maxBytes?: number;
  /** Accepted extensions, lower case with the dot. Default: the meeting service's. */
  extensions?: readonly string[];
}

export interface RecordingInfo {
  /** Absolute path. */
  path: string;
  name: string;
  size: number;
  mtimeMs: number;
  /** Lower case, with the dot. */
  extension: string;
  container: RecordingContainer;
  contentType: string;
  /** Undefined when the duration cannot be read locally (e.g. AVI); the server then enforces its limit. */
  durationSeconds: number | undefined;
}

function invalid(file: string, problem: string, fix: string): ValidationError {
  return new ValidationError(`${file} ${problem}. ${fix} Nothing was sent.`, [
    { path: 'file', message: problem },
  ]);
}

/** Human size with a unit that keeps small limits readable (a 50 000-byte limit is not "0.0 MB"). */
function formatMegabytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function formatDuration(seconds: number): string {
  const total = Math.round(seconds);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  return hours > 0 ? `${hours} h ${minutes} min` : `${minutes} min ${total % 60} s`;
}

/** Opens `file` (a regular file, never blocking on a FIFO), inspects it and closes it again. */
export async function inspectRecording(
  file: string,
  options: InspectRecordingOptions = {},
): Promise<RecordingInfo> {
  const opened = await openRegularFile(file);
  try {
    return await inspectOpenedRecording(opened, options);
  } finally {
    await opened.handle.close();
  }
}

/**
 * Checks an opened recording: an accepted extension, not empty, the container's signature, the size limit
 * when known, a structure that parses (see `validateRecordingContent`) and the duration limit. Reads only
 * through the descriptor; the caller keeps it open for the upload and closes it.
 */
export async function inspectOpenedRecording(
  file: OpenedFile,
  options: InspectRecordingOptions = {},
): Promise<RecordingInfo> {
  const absolute = file.realPath;
  const name = path.basename(absolute);
  const accepted = options.extensions ?? MEETING_EXTENSIONS;
  const maxDuration = options.maxDurationSeconds ?? MEETING_MAX_DURATION_SECONDS;
  const extension = path.extname(name).toLowerCase();
  const container = RECORDING_CONTAINERS[extension];
  if (!accepted.includes(extension) || container === undefined) {
    throw invalid(
      absolute,
      `has an unsupported format (${extension || 'no extension'})`,
      `Accepted formats: ${accepted.map((item) => item.slice(1).toUpperCase()).join(', ')}. Convert the recording first.`,
    );
  }
  if (file.size === 0) {
    throw invalid(absolute, 'is empty', 'Check that the recording finished writing, then try again.');
  }
  const head = await readAt(file.handle, 0, SIGNATURE_BYTES);
  if (!matchesSignature(container, head)) {
    throw invalid(
      absolute,
      `does not look like a ${container.toUpperCase()} file (it does not start with ${describeSignature(container)})`,
      'The file may be misnamed or damaged; give it the extension of its real format, or re-export it.',
    );
  }
  const info: RecordingInfo = {
    path: absolute,
    name,
    size: file.size,
    mtimeMs: file.mtimeMs,
    extension,
    container,
    contentType: RECORDING_CONTENT_TYPES[container],
    durationSeconds: undefined,
  };
  if (options.maxBytes !== undefined) assertWithinUploadLimit(info, options.maxBytes);
  const content = await validateRecordingContent(file, container);
  if ('problem' in content) {
    throw invalid(
      absolute,
      content.problem,
      'Re-export or re-record it (and check that it was copied completely), then try again.',
    );
  }
  const { durationSeconds } = content;
  if (durationSeconds !== undefined && durationSeconds > maxDuration) {
    throw invalid(
      absolute,
      `is ${formatDuration(durationSeconds)} long, over the limit of ${formatDuration(maxDuration)}`,
      'Split the recording into shorter parts and summarize each.',
    );
  }
  return { ...info, durationSeconds };
}

/** Refuses a recording over an upload limit learnt after the inspection (e.g. from the service). */
export function assertWithinUploadLimit(recording: RecordingInfo, maxBytes: number): void {
  if (recording.size > maxBytes) {
    throw invalid(
      recording.path,
      `is ${formatMegabytes(recording.size)}, over the upload limit of ${formatMegabytes(maxBytes)}`,
      'Compress the recording (e.g. to audio-only MP3/M4A) or split it, then upload the parts.',
    );
  }
}
