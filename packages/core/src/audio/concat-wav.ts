/** Joins WAV files of one format into one WAV file (e.g. phrases recorded separately). */
import { ValidationError } from '../errors/polymodal-error.js';
import { wavHeader } from './encode-wav.js';
import { parseWav } from './parse-wav.js';

export function concatWav(parts: readonly Uint8Array[]): Buffer {
  if (parts.length === 0) {
    throw new ValidationError('concatWav needs at least one WAV file.', [
      { path: 'parts', message: 'empty' },
    ]);
  }
  const parsed = parts.map((part) => parseWav(part));
  const first = parsed[0] as (typeof parsed)[number];
  const describe = (wav: typeof first) =>
    `${wav.sampleRate} Hz, ${wav.channels} channel(s), ${wav.bitsPerSample}-bit ${wav.format}`;
  parsed.forEach((wav, index) => {
    if (
      wav.sampleRate !== first.sampleRate ||
      wav.channels !== first.channels ||
      wav.bitsPerSample !== first.bitsPerSample ||
      wav.format !== first.format
    ) {
      throw new ValidationError(
        `WAV part ${index} is ${describe(wav)} but part 0 is ${describe(first)}; convert them to one format before joining.`,
        [{ path: `parts.${index}`, message: 'format differs from part 0' }],
      );
    }
  });
  const dataBytes = parsed.reduce((sum, wav) => sum + wav.data.byteLength, 0);
  return Buffer.concat([wavHeader(first, dataBytes), ...parsed.map((wav) => wav.data)]);
}
