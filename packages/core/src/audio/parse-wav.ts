/**
 * Reads the format and the sample bytes of a WAV file by walking its RIFF chunks: PCM (8/16/24/32-bit
 * integer) and IEEE float (32/64-bit), plain or WAVE_FORMAT_EXTENSIBLE. Anything else is refused with a
 * ValidationError that says what to do instead.
 */
import { ValidationError } from '../errors/index.js';

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

export function invalidWav(message: string): ValidationError {
  return new ValidationError(
    `Not a usable WAV file: ${message}. Convert it to PCM WAV (or install ffmpeg for other formats).`,
    [{ path: 'audio', message }],
  );
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
  let fmt: { format: number; channels: number; sampleRate: number; bits: number } | undefined;
  while (offset + 8 <= view.length) {
    const id = view.toString('ascii', offset, offset + 4);
    const size = view.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > view.length) throw invalidWav('fmt chunk too short');
      let format = view.readUInt16LE(body);
      if (format === WAVE_FORMAT_EXTENSIBLE) {
        // The real format is the first two bytes of the sub-format GUID.
        if (size < 40 || body + 26 > view.length) throw invalidWav('extensible fmt chunk too short');
        format = view.readUInt16LE(body + 24);
      }
      fmt = {
        format,
        channels: view.readUInt16LE(body + 2),
        sampleRate: view.readUInt32LE(body + 4),
        bits: view.readUInt16LE(body + 14),
      };
    } else if (id === 'data') {
      if (!fmt) throw invalidWav('data chunk before the fmt chunk');
      const isPcm = fmt.format === WAVE_FORMAT_PCM && [8, 16, 24, 32].includes(fmt.bits);
      const isFloat = fmt.format === WAVE_FORMAT_IEEE_FLOAT && [32, 64].includes(fmt.bits);
      if (!isPcm && !isFloat) {
        throw invalidWav(`unsupported encoding (format ${fmt.format}, ${fmt.bits}-bit)`);
      }
      if (fmt.channels < 1 || fmt.sampleRate < 1) throw invalidWav('no channels or no sample rate');
      // A data size larger than the file (streamed recorders write 0xFFFFFFFF) means "up to the end".
      const end = Math.min(view.length, body + size);
      const frameBytes = (fmt.bits / 8) * fmt.channels;
      const usable = end - body - ((end - body) % frameBytes);
      return {
        sampleRate: fmt.sampleRate,
        channels: fmt.channels,
        bitsPerSample: fmt.bits,
        format: isFloat ? 'float' : 'pcm',
        data: new Uint8Array(view.buffer, view.byteOffset + body, usable),
        durationSeconds: usable / frameBytes / fmt.sampleRate,
      };
    }
    // Chunks are padded to an even size.
    offset = body + size + (size % 2);
  }
  throw invalidWav('no data chunk');
}
