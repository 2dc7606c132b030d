/**
 * Builds WAV files of any layout for tests: a sine tone in PCM 8/16/24/32-bit or float 32/64-bit,
 * optionally as WAVE_FORMAT_EXTENSIBLE, with extra chunks before `data` when asked; or plain silence.
 */
import { truncate, writeFile } from 'node:fs/promises';
import { type WavLayout, wavHeader } from '../../src/audio/encode-wav.js';

export interface ToneWavOptions {
  rate: number;
  channels: number;
  bits: number;
  float?: boolean;
  extensible?: boolean;
  seconds: number;
  hz: number;
  amplitude?: number;
  /** Chunks inserted between `fmt ` and `data` (id → body). */
  extraChunks?: Record<string, Buffer>;
}

export function toneWav(options: ToneWavOptions): Buffer {
  const frames = Math.round(options.rate * options.seconds);
  const width = options.bits / 8;
  const amplitude = options.amplitude ?? 0.5;
  const data = Buffer.alloc(frames * options.channels * width);
  for (let frame = 0; frame < frames; frame++) {
    const value = amplitude * Math.sin((2 * Math.PI * options.hz * frame) / options.rate);
    for (let channel = 0; channel < options.channels; channel++) {
      const at = (frame * options.channels + channel) * width;
      if (options.float && width === 4) data.writeFloatLE(value, at);
      else if (options.float) data.writeDoubleLE(value, at);
      else if (width === 1) data.writeUInt8(Math.round(value * 127) + 128, at);
      else if (width === 2) data.writeInt16LE(Math.round(value * 32767), at);
      else if (width === 3) data.writeIntLE(Math.round(value * 8388607), at, 3);
      else data.writeInt32LE(Math.round(value * 2147483647), at);
    }
  }
  const formatCode = options.float ? 3 : 1;
  const fmt = Buffer.alloc(options.extensible ? 40 : 16);
  fmt.writeUInt16LE(options.extensible ? 0xfffe : formatCode, 0);
  fmt.writeUInt16LE(options.channels, 2);
  fmt.writeUInt32LE(options.rate, 4);
  fmt.writeUInt32LE(options.rate * options.channels * width, 8);
  fmt.writeUInt16LE(options.channels * width, 12);
  fmt.writeUInt16LE(options.bits, 14);
  if (options.extensible) {
    fmt.writeUInt16LE(22, 16);
    fmt.writeUInt16LE(options.bits, 18);
    fmt.writeUInt32LE(options.channels === 2 ? 3 : 4, 20);
    // Sub-format GUID: format code, then the fixed KSDATAFORMAT suffix.
    fmt.writeUInt16LE(formatCode, 24);
    Buffer.from('000000001000800000aa00389b71', 'hex').copy(fmt, 26);
  }
  const chunk = (id: string, body: Buffer) => {
    const head = Buffer.alloc(8);
    head.write(id, 0, 'ascii');
    head.writeUInt32LE(body.length, 4);
    return Buffer.concat([head, body, Buffer.alloc(body.length % 2)]);
  };
  const body = Buffer.concat([
    Buffer.from('WAVE', 'ascii'),
    chunk('fmt ', fmt),
    ...Object.entries(options.extraChunks ?? {}).map(([id, value]) => chunk(id, value)),
    chunk('data', data),
  ]);
  const riff = Buffer.alloc(8);
  riff.write('RIFF', 0, 'ascii');
  riff.writeUInt32LE(body.length, 4);
  return Buffer.concat([riff, body]);
}

/** A small, valid PCM WAV of `seconds` of silence (8 kHz, mono, 16 bit, the 44-byte header). */
export function wav(seconds: number): Buffer {
  return toneWav({ rate: 8000, channels: 1, bits: 16, seconds, hz: 0, amplitude: 0 });
}

/** Frequency estimated from zero crossings. */
export function frequencyOf(samples: Int16Array, rate: number): number {
  let crossings = 0;
  for (let index = 1; index < samples.length; index++) {
    if ((samples[index - 1] ?? 0) < 0 !== (samples[index] ?? 0) < 0) crossings++;
  }
  return crossings / 2 / (samples.length / rate);
}

/** Root mean square of PCM16 samples, in full-scale units (0..1). */
export function rmsOf(samples: Int16Array): number {
  let sum = 0;
  for (const value of samples) sum += (value / 32768) ** 2;
  return Math.sqrt(sum / Math.max(1, samples.length));
}

/**
 * A WAV file of `dataBytes` bytes of silence that takes no disk space: a real 44-byte header, then a hole.
 * For limits of gigabytes that a test must reach without writing them.
 */
export async function writeSparseWav(file: string, layout: WavLayout, dataBytes: number): Promise<string> {
  await writeFile(file, wavHeader(layout, dataBytes));
  await truncate(file, 44 + dataBytes);
  return file;
}
