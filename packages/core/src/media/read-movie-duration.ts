/**
 * The duration an MP4/MOV declares in its movie header (`moov` → `mvhd`), read from an open descriptor.
 * music-metadata takes an MP4's duration from its audio track only, so a video without sound would have
 * none; the movie header is what every player shows. Only the boxes on the way are read.
 */
import type { OpenedFile } from '../files/open-verified-file.js';
import { readAt } from '../files/open-verified-file.js';

/** More boxes than any real file has at one level: a bound on the walk over a crafted one. */
const MAX_BOXES = 10_000;

interface Box {
  type: string;
  /** Where the box's content starts, and where the box ends. */
  start: number;
  end: number;
}

/** The first box of `type` between `from` and `to`, or undefined (also when the boxes do not chain). */
async function findBox(file: OpenedFile, from: number, to: number, type: string): Promise<Box | undefined> {
  let offset = from;
  for (let count = 0; count < MAX_BOXES && offset + 8 <= to; count += 1) {
    const header = await readAt(file.handle, offset, 16);
    if (header.length < 8) return undefined;
    let size = header.readUInt32BE(0);
    const name = header.toString('latin1', 4, 8);
    let headerSize = 8;
    if (size === 1) {
      if (header.length < 16) return undefined;
      size = Number(header.readBigUInt64BE(8));
      headerSize = 16;
    } else if (size === 0) {
      // "To the end of the enclosing container".
      size = to - offset;
    }
    if (size < headerSize || offset + size > to) return undefined;
    if (name === type) return { type: name, start: offset + headerSize, end: offset + size };
    offset += size;
  }
  return undefined;
}

/** Seconds from the movie header, or undefined when there is no `moov`/`mvhd` or it gives none. */
export async function readMovieDuration(file: OpenedFile): Promise<number | undefined> {
  const movie = await findBox(file, 0, file.size, 'moov');
  if (!movie) return undefined;
  const header = await findBox(file, movie.start, movie.end, 'mvhd');
  if (!header) return undefined;
  const fields = await readAt(file.handle, header.start, Math.min(32, header.end - header.start));
  const version = fields[0];
  let timescale: number;
  let duration: number;
  // All ones is "unknown" (a recording still being written, or fragments that carry the timing).
  if (version === 1 && fields.length >= 32) {
    timescale = fields.readUInt32BE(20);
    const long = fields.readBigUInt64BE(24);
    if (long === 0xffffffffffffffffn) return undefined;
    duration = Number(long);
  } else if (version === 0 && fields.length >= 20) {
    timescale = fields.readUInt32BE(12);
    duration = fields.readUInt32BE(16);
    if (duration === 0xffffffff) return undefined;
  } else {
    return undefined;
  }
  return timescale === 0 ? undefined : duration / timescale;
}
