/**
 * What is inside a recording, read from its open descriptor with parsers that know the formats: the RIFF
 * layout of a WAV or AVI (read here), the boxes of an MP4/MOV/M4A, the frames of an MP3, the EBML of an
 * MKV/WebM, an Ogg or FLAC stream (music-metadata). Magic bytes alone let a header followed by junk through,
 * and junk is uploaded and paid for; here it is refused, with what is wrong.
 *
 * Where a format the services accept carries no duration music-metadata can read (AVI, MPEG, some MKV), the
 * recording passes with an unknown duration and the platform enforces its limit (413), as documented; a
 * structure that does not parse is refused. An MP4 family file must have a `moov` box with a duration.
 */
import type { IFormat } from 'music-metadata';
import type { OpenedFile } from '../files/open-verified-file.js';
import { createDescriptorBlob } from './create-descriptor-blob.js';
import { readMovieDuration } from './read-movie-duration.js';
import { checkAviLayout, type LayoutProblem, readWavLayout } from './read-riff-layout.js';
import { RECORDING_CONTENT_TYPES, type RecordingContainer } from './recording-formats.js';

export interface RecordingContent {
  /** Undefined when the format's duration cannot be read locally. */
  durationSeconds: number | undefined;
}

export interface ValidateRecordingOptions {
  /** Read the duration even where that means scanning the file (MP3 without a header). Default true. */
  duration?: boolean;
}

/** Checks the inside of `file` as a `container`; its signature has been matched already. */
export async function validateRecordingContent(
  file: OpenedFile,
  container: RecordingContainer,
  options: ValidateRecordingOptions = {},
): Promise<RecordingContent | LayoutProblem> {
  switch (container) {
    case 'wav': {
      const layout = await readWavLayout(file);
      return 'problem' in layout ? layout : { durationSeconds: layout.durationSeconds };
    }
    case 'avi':
      return (await checkAviLayout(file)) ?? { durationSeconds: undefined };
    case 'mpeg':
      // music-metadata reads MPEG audio, not program or transport streams: the signature is all we check.
      return { durationSeconds: undefined };
    default:
      break;
  }
  const parsed = await readFormat(file, RECORDING_CONTENT_TYPES[container], options.duration ?? true);
  switch (container) {
    case 'mp4':
    case 'm4a':
    case 'm4v':
    case 'mov': {
      if ('error' in parsed) {
        return { problem: `is damaged or cut short: its MP4 boxes cannot be read (${parsed.error})` };
      }
      // music-metadata reads the audio track's duration; a video without sound has the movie header's.
      const duration = durationOf(parsed.format) || (await readMovieDuration(file));
      if (duration === undefined || !(duration > 0)) {
        return {
          problem:
            'has no playable movie: no "moov" box with a duration (it may be cut short, still being recorded, or not a video)',
        };
      }
      return { durationSeconds: duration };
    }
    case 'mp3':
      if ('error' in parsed)
        return { problem: `is damaged: its MPEG audio cannot be read (${parsed.error})` };
      if (parsed.format.container === undefined && parsed.format.codec === undefined) {
        return { problem: 'is damaged: no MPEG audio frame was found in it' };
      }
      return { durationSeconds: durationOf(parsed.format) };
    case 'mkv':
    case 'webm':
      if ('error' in parsed) {
        return { problem: `is damaged: its Matroska/WebM structure cannot be read (${parsed.error})` };
      }
      if (parsed.format.container === undefined) {
        return { problem: 'is damaged: no Matroska/WebM segment was found in it' };
      }
      return { durationSeconds: durationOf(parsed.format) };
    case 'ogg':
    case 'flac':
      if ('error' in parsed) {
        return {
          problem: `is damaged: its ${container.toUpperCase()} stream cannot be read (${parsed.error})`,
        };
      }
      if (parsed.format.container === undefined) {
        return { problem: `is damaged: no ${container.toUpperCase()} stream was found in it` };
      }
      return { durationSeconds: durationOf(parsed.format) };
  }
}

function durationOf(format: IFormat): number | undefined {
  const duration = format.duration;
  return typeof duration === 'number' && Number.isFinite(duration) && duration >= 0 ? duration : undefined;
}

/** The format music-metadata reads through the descriptor (never the path), or why it could not. */
async function readFormat(
  file: OpenedFile,
  contentType: string,
  duration: boolean,
): Promise<{ format: IFormat } | { error: string }> {
  const blob = createDescriptorBlob(file.handle, { size: file.size, type: contentType });
  try {
    const { parseBlob } = await loadMusicMetadata();
    const metadata = await parseBlob(blob, { duration, skipCovers: true });
    return { format: metadata.format };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { error: message.length > 160 ? `${message.slice(0, 157)}...` : message };
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
