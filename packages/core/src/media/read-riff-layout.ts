/**
 * The chunk layout of a RIFF file (WAV, AVI), read from an open descriptor. Magic bytes prove nothing: a
 * `RIFF…WAVE` header followed by garbage passes them, is uploaded, and is paid for. Here every chunk must
 * start with a printable four-character id and end inside the file, the RIFF size must agree with the file
 * size, and a WAV must have a valid `fmt ` chunk before a non-empty `data` chunk. The duration of a WAV
 * comes from its `data` length and the byte rate in `fmt `.
 */
import type { OpenedFile } from '../files/open-verified-file.js';
import { readAt } from '../files/open-verified-file.js';

export interface WavLayout {
  formatTag: number;
  channels: number;
  sampleRate: number;
  byteRate: number;
  blockAlign: number;
  bitsPerSample: number;
  dataOffset: number;
  dataBytes: number;
  durationSeconds: number;
}

/** What is wrong, worded to follow the file name in a message ("… is cut short: …"). */
export interface LayoutProblem {
  problem: string;
}

/** A RIFF size or `data` size written by a recorder that could not seek back (piped output). */
const UNKNOWN_SIZES = new Set([0, 0xffffffff]);
/** Far more chunks than any real file has: a bound on the walk over a crafted one. */
const MAX_CHUNKS = 10_000;

interface Chunk {
  id: string;
  offset: number;
  /** Bytes of content (after the 8-byte header). */
  size: number;
}

function isPrintableId(bytes: Uint8Array): boolean {
  return bytes.length === 4 && bytes.every((byte) => byte >= 0x20 && byte <= 0x7e);
}

/**
 * Walks the chunks after the 12-byte RIFF header. `open` lets a chunk whose size is unknown (0 or
 * 0xFFFFFFFF, written by a recorder that could not seek back) run to the end of the file.
 */
async function walkChunks(
  file: OpenedFile,
  open: (id: string) => boolean,
): Promise<{ chunks: Chunk[] } | LayoutProblem> {
  const header = await readAt(file.handle, 0, 12);
  if (header.length < 12) return { problem: 'is cut short: it ends inside its RIFF header' };
  const riffSize = header.readUInt32LE(4);
  const end = file.size;
  if (!UNKNOWN_SIZES.has(riffSize)) {
    const declared = riffSize + 8;
    // One byte of slack either way: writers differ on whether a final pad byte is counted.
    if (declared > end + 1) {
      return {
        problem: `is cut short: its RIFF header announces ${declared} bytes but the file has ${end}`,
      };
    }
    if (declared < end - 1) {
      return {
        problem: `is damaged: its RIFF header announces ${declared} bytes but the file has ${end} (data after the end of the RIFF chunk)`,
      };
    }
  }
  const chunks: Chunk[] = [];
  let offset = 12;
  while (offset + 8 <= end) {
    if (chunks.length >= MAX_CHUNKS) return { problem: `is damaged: more than ${MAX_CHUNKS} RIFF chunks` };
    const chunkHeader = await readAt(file.handle, offset, 8);
    const id = chunkHeader.subarray(0, 4);
    if (!isPrintableId(id)) {
      return { problem: `is damaged: no valid RIFF chunk starts at byte ${offset}` };
    }
    const name = Buffer.from(id).toString('latin1');
    let size = chunkHeader.readUInt32LE(4);
    // A zero size is a real, empty chunk unless the RIFF size is unknown too (then both were never filled in).
    const unknown = size === 0xffffffff || (size === 0 && UNKNOWN_SIZES.has(riffSize));
    if (unknown && open(name)) size = end - offset - 8;
    if (offset + 8 + size > end) {
      return {
        problem: `is cut short: its "${name}" chunk announces ${size} bytes but only ${end - offset - 8} follow`,
      };
    }
    chunks.push({ id: name, offset, size });
    // Chunks are padded to an even length; a missing final pad byte is tolerated (the loop just ends).
    offset += 8 + size + (size % 2);
  }
  if (offset < end && end - offset > 1) {
    return { problem: `is damaged: ${end - offset} stray bytes at its end` };
  }
  return { chunks };
}

/** The layout of a WAV file, or what is wrong with it. */
export async function readWavLayout(file: OpenedFile): Promise<WavLayout | LayoutProblem> {
  const walked = await walkChunks(file, (id) => id === 'data');
  if ('problem' in walked) return walked;
  const format = walked.chunks.find((chunk) => chunk.id === 'fmt ');
  const data = walked.chunks.find((chunk) => chunk.id === 'data');
  if (!format) return { problem: 'is damaged: it has no "fmt " chunk, so its audio format is unknown' };
  if (!data) return { problem: 'has no audio: it has no "data" chunk' };
  if (data.offset < format.offset) return { problem: 'is damaged: its "data" chunk comes before "fmt "' };
  if (format.size < 16)
    return { problem: `is damaged: its "fmt " chunk is ${format.size} bytes (16 needed)` };
  const fields = await readAt(file.handle, format.offset + 8, 16);
  const layout = {
    formatTag: fields.readUInt16LE(0),
    channels: fields.readUInt16LE(2),
    sampleRate: fields.readUInt32LE(4),
    byteRate: fields.readUInt32LE(8),
    blockAlign: fields.readUInt16LE(12),
    bitsPerSample: fields.readUInt16LE(14),
  };
  if (layout.channels === 0 || layout.sampleRate === 0 || layout.byteRate === 0 || layout.blockAlign === 0) {
    return {
      problem: `is damaged: its "fmt " chunk says ${layout.channels} channels, ${layout.sampleRate} Hz, ${layout.byteRate} bytes per second`,
    };
  }
  if (data.size === 0) return { problem: 'has no audio: its "data" chunk is empty' };
  return {
    ...layout,
    dataOffset: data.offset + 8,
    dataBytes: data.size,
    durationSeconds: data.size / layout.byteRate,
  };
}

/** Whether an AVI file's RIFF structure holds together (its duration is not read locally). */
export async function checkAviLayout(file: OpenedFile): Promise<LayoutProblem | undefined> {
  const walked = await walkChunks(file, (id) => id === 'LIST');
  if ('problem' in walked) return walked;
  const first = walked.chunks[0];
  const listType =
    first?.id === 'LIST' && first.size >= 4
      ? (await readAt(file.handle, first.offset + 8, 4)).toString('latin1')
      : undefined;
  if (listType !== 'hdrl') {
    return { problem: 'is damaged: it does not begin with the AVI header list ("LIST hdrl")' };
  }
  return undefined;
}
