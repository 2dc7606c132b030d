/**
 * A WAV file's samples as PCM16 mono at a given rate, decoded block by block as the consumer asks for them:
 * each block is read positionally from the descriptor, mixed to mono and fed to the streaming resampler,
 * so memory stays at a few blocks whatever the file's length, and a consumer that paces itself (real-time
 * streaming) paces the reading too.
 */
import { ValidationError } from '../errors/polymodal-error.js';
import { createStreamingResampler } from './create-streaming-resampler.js';
import { floatToPcm16, pcmToMonoFloat } from './decode-wav-to-pcm16.js';
import type { ReadAt, WavHeader } from './read-wav-header.js';

/** Input bytes read per block: small enough to keep memory flat, large enough to keep reads few. */
const BLOCK_BYTES = 256 * 1024;

export interface DecodeWavStreamOptions {
  /** Output rate in Hz. */
  sampleRate: number;
  signal?: AbortSignal;
  /** Named in errors. */
  file?: string;
}

export async function* decodeWavStream(
  readAt: ReadAt,
  header: WavHeader,
  options: DecodeWavStreamOptions,
): AsyncGenerator<Int16Array, void, undefined> {
  const frameBytes = (header.bitsPerSample / 8) * header.channels;
  const framesPerBlock = Math.max(1, Math.floor(BLOCK_BYTES / frameBytes));
  const resampler = createStreamingResampler({ from: header.sampleRate, to: options.sampleRate });
  for (let frame = 0; frame < header.frames; frame += framesPerBlock) {
    options.signal?.throwIfAborted();
    const count = Math.min(framesPerBlock, header.frames - frame);
    const bytes = await readAt(header.dataOffset + frame * frameBytes, count * frameBytes);
    if (bytes.length < count * frameBytes) {
      throw new ValidationError(
        `${options.file ?? 'The WAV file'} became shorter while it was being read (its header promised more samples); it is being changed or truncated.`,
        [{ path: 'audio', message: 'file shrank while read' }],
      );
    }
    const out = resampler.push(pcmToMonoFloat(bytes, header));
    if (out.length > 0) yield floatToPcm16(out);
  }
  const tail = resampler.end();
  if (tail.length > 0) yield floatToPcm16(tail);
}

/** How many samples decodeWavStream yields for `header` at `sampleRate`. */
export function decodedSampleCount(header: WavHeader, sampleRate: number): number {
  return Math.floor((header.frames * sampleRate) / header.sampleRate);
}
