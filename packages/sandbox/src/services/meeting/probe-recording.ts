/**
 * Reads what the sandbox needs from an uploaded recording: its duration (music-metadata), whether the
 * format is one the service accepts, and the embedded script of a generated recording. A file in an
 * accepted format whose duration cannot be read gets an estimate from its size (documented choice).
 */
import path from 'node:path';
import { MEETING_EXTENSIONS } from '@polymodal/core/constants';
import { parseFile } from 'music-metadata';
import { type RecordingScript, readRecordingScript } from '../../fixtures/recording-script.js';

export interface RecordingProbe {
  durationSeconds: number;
  /** True when the duration is an estimate from the file size. */
  durationEstimated: boolean;
  script: RecordingScript | undefined;
}

/** Bytes per second assumed for a file whose duration cannot be read (128 kbit/s, a typical audio rate). */
export const ESTIMATE_BYTES_PER_SECOND = 16_000;

/** Containers music-metadata reports for the accepted formats (MP4/MOV/M4A, MKV, MP3, WAV, AVI). */
const ACCEPTED_CONTAINERS = [
  /^WAVE/i,
  /^MPEG/i,
  /M4A|mp4|isom|qt|3gp|mp42|M4V/i,
  /matroska|webm|EBML/i,
  /AVI/i,
];

export class UnsupportedFormatError extends Error {}

export async function probeRecording(options: {
  filePath: string;
  filename: string | undefined;
  size: number;
}): Promise<RecordingProbe> {
  const extension = path.extname(options.filename ?? '').toLowerCase();
  const acceptedByName = (MEETING_EXTENSIONS as readonly string[]).includes(extension);
  let container: string | undefined;
  let duration: number | undefined;
  try {
    const metadata = await parseFile(options.filePath, { skipCovers: true });
    container = metadata.format.container;
    duration = metadata.format.duration;
  } catch {
    // Unknown or damaged container: decided below by the file name.
  }
  const acceptedByContent =
    container !== undefined && ACCEPTED_CONTAINERS.some((pattern) => pattern.test(container));
  if (!acceptedByName && !acceptedByContent) {
    throw new UnsupportedFormatError(
      `unsupported recording format${container ? ` (${container})` : ''}: upload MP4, MOV, AVI, MKV, MP3, M4A or WAV`,
    );
  }
  const script = await readRecordingScript(options.filePath).catch(() => undefined);
  if (duration !== undefined && Number.isFinite(duration) && duration > 0) {
    return { durationSeconds: duration, durationEstimated: false, script };
  }
  return {
    durationSeconds: Math.max(1, options.size / ESTIMATE_BYTES_PER_SECOND),
    durationEstimated: true,
    script,
  };
}
