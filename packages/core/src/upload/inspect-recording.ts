/**
 * Local checks of a recording before any byte is sent: the upload is slow and the job costs credits, so
 * every problem that can be seen locally is reported locally, with what to do about it.
 */
import { constants, type Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import path from 'node:path';
import { MEETING_EXTENSIONS, MEETING_MAX_DURATION_SECONDS } from '../contracts/index.js';
import { ValidationError } from '../errors/index.js';
import {
  describeSignature,
  matchesSignature,
  RECORDING_CONTAINERS,
  RECORDING_CONTENT_TYPES,
  type RecordingContainer,
  SIGNATURE_BYTES,
} from './recording-formats.js';

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

// O_NONBLOCK keeps open() from hanging on a FIFO with no writer; it has no effect on regular files.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

function invalid(file: string, problem: string, fix: string): ValidationError {
  return new ValidationError(`${file} ${problem}. ${fix}`, [{ path: 'file', message: problem }]);
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a named pipe';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
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

export async function inspectRecording(
  file: string,
  options: InspectRecordingOptions = {},
): Promise<RecordingInfo> {
  const absolute = path.resolve(file);
  const name = path.basename(absolute);
  const accepted = options.extensions ?? MEETING_EXTENSIONS;
  const maxDuration = options.maxDurationSeconds ?? MEETING_MAX_DURATION_SECONDS;

  let handle: FileHandle;
  try {
    handle = await open(absolute, OPEN_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw invalid(absolute, 'does not exist', 'Check the path (use an absolute path) and try again.');
    }
    if (code === 'EISDIR') throw invalid(absolute, 'is a directory', 'Give the path of a recording file.');
    if (code === 'EACCES' || code === 'EPERM') {
      throw invalid(
        absolute,
        'cannot be read (permission denied)',
        'Fix the file permissions or copy it elsewhere.',
      );
    }
    throw invalid(absolute, `cannot be opened (${code ?? 'unknown error'})`, 'Check the path and try again.');
  }

  try {
    // Checked on the opened descriptor, not the path: the path could be swapped in between.
    const stats = await handle.stat();
    if (!stats.isFile()) {
      throw invalid(
        absolute,
        `is ${kindOf(stats)}, not a recording file`,
        'Give the path of a recording file.',
      );
    }
    const extension = path.extname(name).toLowerCase();
    const container = RECORDING_CONTAINERS[extension];
    if (!accepted.includes(extension) || container === undefined) {
      throw invalid(
        absolute,
        `has an unsupported format (${extension || 'no extension'})`,
        `Accepted formats: ${accepted.map((item) => item.slice(1).toUpperCase()).join(', ')}. Convert the recording first.`,
      );
    }
    if (stats.size === 0) {
      throw invalid(absolute, 'is empty', 'Check that the recording finished writing, then try again.');
    }
    const head = new Uint8Array(SIGNATURE_BYTES);
    const { bytesRead } = await handle.read(head, 0, SIGNATURE_BYTES, 0);
    if (!matchesSignature(container, head.subarray(0, bytesRead))) {
      throw invalid(
        absolute,
        `does not look like a ${container.toUpperCase()} file (it does not start with ${describeSignature(container)})`,
        'The file may be misnamed or damaged; give it the extension of its real format, or re-export it.',
      );
    }
    if (options.maxBytes !== undefined && stats.size > options.maxBytes) {
      throw invalid(
        absolute,
        `is ${formatMegabytes(stats.size)}, over the upload limit of ${formatMegabytes(options.maxBytes)}`,
        'Compress the recording (e.g. to audio-only MP3/M4A) or split it, then upload the parts.',
      );
    }
    const durationSeconds = await readDuration(absolute);
    if (durationSeconds !== undefined && durationSeconds > maxDuration) {
      throw invalid(
        absolute,
        `is ${formatDuration(durationSeconds)} long, over the limit of ${formatDuration(maxDuration)}`,
        'Split the recording into shorter parts and summarize each.',
      );
    }
    return {
      path: absolute,
      name,
      size: stats.size,
      mtimeMs: stats.mtimeMs,
      extension,
      container,
      contentType: RECORDING_CONTENT_TYPES[container],
      durationSeconds,
    };
  } finally {
    await handle.close();
  }
}

/**
 * Duration from the container metadata. Some containers (AVI) or unusual files cannot be measured
 * locally; they pass with an unknown duration and the server enforces its limit (413).
 */
async function readDuration(file: string): Promise<number | undefined> {
  try {
    const metadata = await (await loadMusicMetadata()).parseFile(file, { duration: true, skipCovers: true });
    const duration = metadata.format.duration;
    return typeof duration === 'number' && Number.isFinite(duration) && duration >= 0 ? duration : undefined;
  } catch {
    return undefined;
  }
}

/**
 * music-metadata is loaded on the first recording inspected, not at import: it is a good part of a
 * server's start-up time and only uploads need it.
 */
let musicMetadata: Promise<typeof import('music-metadata')> | undefined;
function loadMusicMetadata(): Promise<typeof import('music-metadata')> {
  musicMetadata ??= import('music-metadata');
  return musicMetadata;
}
