/**
 * Opens a local audio file once and checks, on the opened descriptor and before anything is decoded or
 * sent, what a recording must be: a regular file (a FIFO, a directory, a socket or a device is refused at
 * once: the open never blocks), not empty, and either a WAV whose header agrees with the file (its duration
 * then known exactly) or, for other formats, something ffmpeg is installed to decode and ffprobe can read
 * (its duration then known from the container, when ffprobe is installed).
 *
 * Every later read comes from that descriptor: WAV samples positionally, block by block; other formats
 * through ffmpeg reading the same descriptor (see decodeWithFfmpeg). Nothing is read whole.
 */
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { ValidationError } from '../errors/polymodal-error.js';
import { openRegularFile } from '../files/open-verified-file.js';
import { decodedSampleCount, decodeWavStream } from './decode-wav-stream.js';
import { decodeWithFfmpeg, ffmpegMissing } from './decode-with-ffmpeg.js';
import { findExecutable } from './find-executable.js';
import { probeWithFfprobe } from './probe-with-ffprobe.js';
import { readAtOf, readWavHeader, type WavHeader } from './read-wav-header.js';

/** A file opened and checked by whoever confines paths (FileAccess.openReadable). */
export interface OpenedAudioSource {
  handle: FileHandle;
  realPath: string;
  size: number;
}

export interface OpenAudioFileOptions {
  /**
   * Opens the path: FileAccess.openReadable, so that only files in the allowed directories are read.
   * Default: openRegularFile (no confinement: the path as given, a regular file, never blocking).
   */
  open?: (file: string) => Promise<OpenedAudioSource>;
  /** The ffmpeg executable (default `ffmpeg`, looked up on PATH). */
  ffmpegPath?: string;
  /** The ffprobe executable (default: beside an explicit ffmpegPath, else `ffprobe` on PATH). */
  ffprobePath?: string;
  signal?: AbortSignal;
}

export interface AudioFile {
  /** The real path, as named in messages. */
  readonly path: string;
  /** Bytes, from the opened descriptor. */
  readonly size: number;
  readonly format: 'wav' | 'other';
  /** The WAV layout and where its samples lie (WAV only). */
  readonly wav: WavHeader | undefined;
  /** Seconds of audio: exact for WAV, from ffprobe for other formats; undefined when unknown. */
  readonly durationSeconds: number | undefined;
  /** Why the duration is unknown, in words (for a message). */
  readonly durationUnknownBecause: string | undefined;
  /** PCM16 mono blocks at `sampleRate`, decoded as they are asked for. */
  decode(options: { sampleRate: number; signal?: AbortSignal }): AsyncGenerator<Int16Array, void, undefined>;
  /** How many samples `decode` yields at `sampleRate`, when known exactly (WAV). */
  samplesAt(sampleRate: number): number | undefined;
  close(): Promise<void>;
}

const WAV_EXTENSIONS = new Set(['.wav', '.wave']);

function refused(message: string, issue: string): ValidationError {
  return new ValidationError(message, [{ path: 'file', message: issue }]);
}

/** Whether the first bytes look like text (a transcript or notes saved under an audio name). */
function looksLikeText(bytes: Buffer): boolean {
  if (bytes.length === 0) return false;
  const text = bytes.toString('utf8');
  return !text.includes('\uFFFD') && !/[\u0000-\u0008\u000E-\u001F]/.test(text);
}

function ffprobeBeside(ffmpegPath: string | undefined): string {
  if (ffmpegPath === undefined || !(ffmpegPath.includes('/') || ffmpegPath.includes(path.sep)))
    return 'ffprobe';
  const extension = path.extname(ffmpegPath);
  return path.join(path.dirname(ffmpegPath), `ffprobe${extension}`);
}

export async function openAudioFile(file: string, options: OpenAudioFileOptions = {}): Promise<AudioFile> {
  options.signal?.throwIfAborted();
  const opened = await (options.open ?? ((given: string) => openRegularFile(given)))(file);
  const { handle, realPath, size } = opened;
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= handle.close();
    return closed;
  };
  try {
    if (size === 0) {
      throw refused(`${realPath} is empty (0 bytes): there is no audio in it.`, 'empty file');
    }
    const readAt = readAtOf(handle);
    const start = await readAt(0, Math.min(size, 64));
    const isWav = start.toString('ascii', 0, 4) === 'RIFF' && start.toString('ascii', 8, 12) === 'WAVE';
    if (isWav) {
      const header = await readWavHeader(readAt, size, realPath);
      return {
        path: realPath,
        size,
        format: 'wav',
        wav: header,
        durationSeconds: header.durationSeconds,
        durationUnknownBecause: undefined,
        decode: (decode) =>
          decodeWavStream(readAt, header, {
            sampleRate: decode.sampleRate,
            file: realPath,
            ...(decode.signal ? { signal: decode.signal } : {}),
          }),
        samplesAt: (sampleRate) => decodedSampleCount(header, sampleRate),
        close,
      };
    }
    if (WAV_EXTENSIONS.has(path.extname(realPath).toLowerCase())) {
      throw refused(
        `${realPath} is named like a WAV file but is not one: it has no RIFF/WAVE header${looksLikeText(start) ? ' and holds text' : ''}. Give a real recording.`,
        'not a WAV file',
      );
    }
    const ffmpeg = await findExecutable(options.ffmpegPath ?? 'ffmpeg');
    if (!ffmpeg) throw ffmpegMissing(realPath);
    const input = { fd: handle.fd, path: realPath };
    const ffprobe = await findExecutable(options.ffprobePath ?? ffprobeBeside(options.ffmpegPath));
    let durationSeconds: number | undefined;
    let durationUnknownBecause: string | undefined = 'ffprobe (installed with ffmpeg) was not found';
    if (ffprobe) {
      const probe = await probeWithFfprobe(input, {
        ffprobePath: ffprobe,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      if (probe.audioStreams === 0) throw refused(`${realPath} holds no audio stream.`, 'no audio stream');
      durationSeconds = probe.durationSeconds;
      durationUnknownBecause = durationSeconds === undefined ? 'ffprobe could not tell it' : undefined;
    }
    return {
      path: realPath,
      size,
      format: 'other',
      wav: undefined,
      durationSeconds,
      durationUnknownBecause,
      decode: (decode) =>
        decodeWithFfmpeg(input, {
          sampleRate: decode.sampleRate,
          ffmpegPath: ffmpeg,
          ...(decode.signal ? { signal: decode.signal } : {}),
        }),
      samplesAt: () => undefined,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
