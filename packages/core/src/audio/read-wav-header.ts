/**
 * Reads what a WAV file on disk holds without reading its samples: the layout from the `fmt ` chunk and
 * where the `data` chunk lies, by walking the RIFF chunk headers with small positional reads. This is what
 * lets a caller know a recording's duration (and refuse it) before decoding a byte of a 1.5 GB file.
 *
 * The data chunk must agree with the file: one that declares more bytes than follow it means a truncated
 * or mislabelled file and is refused, except for the 0xFFFFFFFF placeholder that streaming recorders write
 * (then the samples run to the end of the file).
 */
import type { FileHandle } from 'node:fs/promises';
import type { WavLayout } from './encode-wav.js';
import { invalidWav, wavLayoutOf } from './parse-wav.js';

export interface WavHeader extends WavLayout {
  /** Byte offset of the first sample in the file. */
  dataOffset: number;
  /** Bytes of whole frames in the data chunk (a trailing partial frame is left out). */
  dataBytes: number;
  /** Sample frames (one sample per channel each). */
  frames: number;
  durationSeconds: number;
}

/** Reads up to `length` bytes at `position` (fewer only at the end of the file). */
export type ReadAt = (position: number, length: number) => Promise<Buffer>;

/**
 * Positional reads of an opened file: they never move a shared file position, so ffmpeg reading the same
 * descriptor and this reader do not collide.
 */
export function readAtOf(handle: FileHandle): ReadAt {
  return async (position, length) => {
    const buffer = Buffer.allocUnsafe(length);
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  };
}

/** The data size streaming recorders write before they know the length. */
const UNKNOWN_DATA_SIZE = 0xffffffff;
/** Chunks walked before the data chunk at most: a real file has a handful. */
const MAX_CHUNKS = 1000;

export async function readWavHeader(readAt: ReadAt, fileSize: number, file?: string): Promise<WavHeader> {
  const riff = await readAt(0, 12);
  if (
    riff.length < 12 ||
    riff.toString('ascii', 0, 4) !== 'RIFF' ||
    riff.toString('ascii', 8, 12) !== 'WAVE'
  ) {
    throw invalidWav('no RIFF/WAVE header', file);
  }
  let offset = 12;
  let layout: WavLayout | undefined;
  for (let chunks = 0; offset + 8 <= fileSize; chunks++) {
    if (chunks >= MAX_CHUNKS) throw invalidWav(`more than ${MAX_CHUNKS} chunks before the data chunk`, file);
    const head = await readAt(offset, 8);
    if (head.length < 8) break;
    const id = head.toString('ascii', 0, 4);
    const size = head.readUInt32LE(4);
    const body = offset + 8;
    if (id === 'fmt ') {
      layout = wavLayoutOf(await readAt(body, Math.min(size, 40)), size, file);
    } else if (id === 'data') {
      if (!layout) throw invalidWav('data chunk before the fmt chunk', file);
      const available = fileSize - body;
      if (size !== UNKNOWN_DATA_SIZE && size > available) {
        throw invalidWav(
          `its data chunk declares ${size} bytes of samples but only ${available} follow in the file (truncated or mislabelled)`,
          file,
        );
      }
      const declared = size === UNKNOWN_DATA_SIZE ? available : size;
      const frameBytes = (layout.bitsPerSample / 8) * layout.channels;
      const frames = Math.floor(declared / frameBytes);
      return {
        ...layout,
        dataOffset: body,
        dataBytes: frames * frameBytes,
        frames,
        durationSeconds: frames / layout.sampleRate,
      };
    }
    // Chunks are padded to an even size.
    offset = body + size + (size % 2);
  }
  throw invalidWav('no data chunk', file);
}
