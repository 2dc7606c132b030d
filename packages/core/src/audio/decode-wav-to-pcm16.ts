/**
 * Any supported WAV (see parseWav) to what streaming recognition takes: PCM16 mono at a given rate.
 * Channels are averaged; the rate is converted with the windowed-sinc resampler.
 */
import type { WavLayout } from './encode-wav.js';
import { parseWav, type WavInfo } from './parse-wav.js';
import { resampleAudio } from './resample-audio.js';

/** Samples as floats in -1..1, channels averaged to mono. */
export function wavToMonoFloat(wav: WavInfo): Float32Array {
  return pcmToMonoFloat(Buffer.from(wav.data.buffer, wav.data.byteOffset, wav.data.byteLength), wav);
}

/** Interleaved sample bytes of a layout (whole frames) as floats in -1..1, channels averaged to mono. */
export function pcmToMonoFloat(bytes: Buffer, layout: WavLayout): Float32Array {
  const width = layout.bitsPerSample / 8;
  const frames = Math.floor(bytes.length / (width * layout.channels));
  const out = new Float32Array(frames);
  const read =
    layout.format === 'float'
      ? width === 4
        ? (at: number) => bytes.readFloatLE(at)
        : (at: number) => bytes.readDoubleLE(at)
      : width === 1
        ? (at: number) => ((bytes[at] ?? 128) - 128) / 128 // 8-bit WAV is unsigned
        : width === 2
          ? (at: number) => bytes.readInt16LE(at) / 32768
          : width === 3
            ? (at: number) => bytes.readIntLE(at, 3) / 8388608
            : (at: number) => bytes.readInt32LE(at) / 2147483648;
  for (let frame = 0; frame < frames; frame++) {
    let sum = 0;
    for (let channel = 0; channel < layout.channels; channel++) {
      sum += read((frame * layout.channels + channel) * width);
    }
    out[frame] = sum / layout.channels;
  }
  return out;
}

/** Float samples in -1..1 to PCM16, clipped; the same scale as the reader, so PCM16 round-trips exactly. */
export function floatToPcm16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let index = 0; index < samples.length; index++) {
    const value = samples[index] ?? 0;
    // NaN from a broken float file becomes silence rather than a click.
    out[index] = Number.isNaN(value) ? 0 : Math.max(-32768, Math.min(32767, Math.round(value * 32768)));
  }
  return out;
}

/** Any supported WAV → PCM16 mono samples at `sampleRate`. */
export function decodeWavToPcm16(input: Uint8Array, sampleRate: number): Int16Array {
  const wav = parseWav(input);
  const mono = wavToMonoFloat(wav);
  return floatToPcm16(
    wav.sampleRate === sampleRate ? mono : resampleAudio(mono, { from: wav.sampleRate, to: sampleRate }),
  );
}
