/**
 * Reads the format and the sample bytes of a WAV file held in memory by walking its RIFF chunks: PCM
 * (8/16/24/32-bit integer) and IEEE float (32/64-bit), plain or WAVE_FORMAT_EXTENSIBLE. Anything else is
 * refused with a ValidationError that says what to do instead. (A file on disk is read with readWavHeader,
 * which reads only the chunk headers.)
 */
import { ValidationError } from '../errors/polymodal-error.js';
import type { WavLayout } from './encode-wav.js';

export interface WavInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  format: 'pcm' | 'float';
  /** The sample bytes of the `data` chunk (a view on the input, not a copy), whole frames only. */
  data: Uint8Array;
  durationSeconds: number;
}

const WAVE_FORMAT_PCM = 1;
const WAVE_FORMAT_IEEE_FLOAT = 3;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;

/** A refusal naming what is wrong (and the file, when there is one) and what to do instead. */
export function invalidWav(message: string, file?: string): ValidationError {
  return new ValidationError(
    `Not a usable WAV file${file ? ` (${file})` : ''}: ${message}. Convert it to PCM WAV (or install ffmpeg for other formats).`,
    [{ path: 'audio', message }],
  );
}

/**
 * The layout a `fmt ` chunk body describes, refused unless it is one this module decodes. `body` holds at
 * least the first 16 bytes of the chunk (40 for WAVE_FORMAT_EXTENSIBLE); `size` is the chunk's size.
 */
export function wavLayoutOf(body: Buffer, size: number, file?: string): WavLayout {
  if (size < 16 || body.length < 16) throw invalidWav('fmt chunk too short', file);
  let format = body.readUInt16LE(0);
  if (format === WAVE_FORMAT_EXTENSIBLE) {
    // The real format is the first two bytes of the sub-format GUID.
    if (size < 40 || body.length < 26) throw invalidWav('extensible fmt chunk too short', file);
    format = body.readUInt16LE(24);
  }
  const channels = body.readUInt16LE(2);
  const sampleRate = body.readUInt32LE(4);
  const bits = body.readUInt16LE(14);
  const isPcm = format === WAVE_FORMAT_PCM && [8, 16, 24, 32].includes(bits);
  const isFloat = format === WAVE_FORMAT_IEEE_FLOAT && [32, 64].includes(bits);
  if (!isPcm && !isFloat) throw invalidWav(`unsupported encoding (format ${format}, ${bits}-bit)`, file);
  if (channels < 1 || sampleRate < 1) throw invalidWav('no channels or no sample rate', file);
  return { sampleRate, channels, bitsPerSample: bits, format: isFloat ? 'float' : 'pcm' };
}

export function parseWav(input: Uint8Array): WavInfo {
  const view = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  if (
    view.length < 12 ||
    view.toString('ascii', 0, 4) !== 'RIFF' ||
    view.toString('ascii', 8, 12) !== 'WAVE'
  ) {
    throw invalidWav('no RIFF/WAVE header');
  }
  let offset = 12;
  let fmt: { body: Buffer; size: number } | undefined;
  while (offset + 8 <= view.length) {
    const id = view.toString('ascii', offset, offset + 4);
    const size = view.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') {
      fmt = { body: view.subarray(body, Math.min(view.length, body + Math.min(size, 40))), size };
      // Checked when found, so that a short fmt chunk is named as such.
      wavLayoutOf(fmt.body, fmt.size);
    } else if (id === 'data') {
      if (!fmt) throw invalidWav('data chunk before the fmt chunk');
      const layout = wavLayoutOf(fmt.body, fmt.size);
      // A data size larger than the file (streamed recorders write 0xFFFFFFFF) means "up to the end".
      const end = Math.min(view.length, body + size);
      const frameBytes = (layout.bitsPerSample / 8) * layout.channels;
      const usable = end - body - ((end - body) % frameBytes);
      return {
        ...layout,
        data: new Uint8Array(view.buffer, view.byteOffset + body, usable),
        durationSeconds: usable / frameBytes / layout.sampleRate,
      };
    }
    // Chunks are padded to an even size.
    offset = body + size + (size % 2);
  }
  throw invalidWav('no data chunk');
}
