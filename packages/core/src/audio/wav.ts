/**
 * WAV reading and writing: any PCM or float WAV (8/16/24/32-bit integer, 32/64-bit float, mono or
 * multichannel, WAVE_FORMAT_EXTENSIBLE too) decoded to samples, converted to PCM16LE mono at a target rate
 * (linear interpolation with a box pre-filter when downsampling: adequate for speech recognition input),
 * and PCM16 WAVs encoded.
 */
import { ValidationError } from '../errors/index.js';

export interface WavInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  format: 'pcm' | 'float';
  /** The raw sample bytes of the `data` chunk. */
  data: Uint8Array;
  durationSeconds: number;
}

const invalid = (message: string) =>
  new ValidationError(
    `Not a usable WAV file: ${message}. Convert it to PCM WAV (or install ffmpeg for other formats).`,
    [{ path: 'audio', message }],
  );

export function parseWav(input: Uint8Array): WavInfo {
  const view = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  if (
    view.length < 12 ||
    view.toString('ascii', 0, 4) !== 'RIFF' ||
    view.toString('ascii', 8, 12) !== 'WAVE'
  ) {
    throw invalid('no RIFF/WAVE header');
  }
  let offset = 12;
  let fmt: { format: number; channels: number; sampleRate: number; bits: number } | undefined;
  while (offset + 8 <= view.length) {
    const id = view.toString('ascii', offset, offset + 4);
    const size = view.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') {
      if (size < 16) throw invalid('fmt chunk too short');
      let format = view.readUInt16LE(body);
      if (format === 0xfffe && size >= 40) format = view.readUInt16LE(body + 24);
      fmt = {
        format,
        channels: view.readUInt16LE(body + 2),
        sampleRate: view.readUInt32LE(body + 4),
        bits: view.readUInt16LE(body + 14),
      };
    } else if (id === 'data') {
      if (!fmt) throw invalid('data before fmt');
      const isPcm = fmt.format === 1 && [8, 16, 24, 32].includes(fmt.bits);
      const isFloat = fmt.format === 3 && [32, 64].includes(fmt.bits);
      if (!isPcm && !isFloat) throw invalid(`unsupported encoding (format ${fmt.format}, ${fmt.bits}-bit)`);
      if (fmt.channels < 1 || fmt.sampleRate < 1) throw invalid('no channels or sample rate');
      const end = Math.min(view.length, body + size);
      const frameBytes = (fmt.bits / 8) * fmt.channels;
      const usable = end - body - ((end - body) % frameBytes);
      const data = new Uint8Array(view.buffer, view.byteOffset + body, usable);
      return {
        sampleRate: fmt.sampleRate,
        channels: fmt.channels,
        bitsPerSample: fmt.bits,
        format: isFloat ? 'float' : 'pcm',
        data,
        durationSeconds: usable / frameBytes / fmt.sampleRate,
      };
    }
    offset = body + size + (size % 2);
  }
  throw invalid('no data chunk');
}

/** Samples as floats in -1..1, channels averaged to mono. */
function toMonoFloat(wav: WavInfo): Float32Array {
  const bytes = Buffer.from(wav.data.buffer, wav.data.byteOffset, wav.data.byteLength);
  const width = wav.bitsPerSample / 8;
  const frames = Math.floor(bytes.length / (width * wav.channels));
  const out = new Float32Array(frames);
  for (let frame = 0; frame < frames; frame++) {
    let sum = 0;
    for (let channel = 0; channel < wav.channels; channel++) {
      const at = (frame * wav.channels + channel) * width;
      let value: number;
      if (wav.format === 'float') value = width === 4 ? bytes.readFloatLE(at) : bytes.readDoubleLE(at);
      else if (width === 1) value = ((bytes[at] ?? 128) - 128) / 128;
      else if (width === 2) value = bytes.readInt16LE(at) / 32768;
      else if (width === 3) value = bytes.readIntLE(at, 3) / 8388608;
      else value = bytes.readInt32LE(at) / 2147483648;
      sum += value;
    }
    out[frame] = sum / wav.channels;
  }
  return out;
}

function resample(samples: Float32Array, from: number, to: number): Float32Array {
  if (from === to) return samples;
  let source = samples;
  if (to < from) {
    // Box filter over the decimation ratio: cheap protection against the worst aliasing.
    const width = Math.max(1, Math.round(from / to));
    source = new Float32Array(samples.length);
    let sum = 0;
    for (let index = 0; index < samples.length; index++) {
      sum += samples[index] ?? 0;
      if (index >= width) sum -= samples[index - width] ?? 0;
      source[index] = sum / Math.min(width, index + 1);
    }
  }
  const length = Math.floor((source.length * to) / from);
  const out = new Float32Array(length);
  const step = from / to;
  for (let index = 0; index < length; index++) {
    const position = index * step;
    const left = Math.floor(position);
    const fraction = position - left;
    out[index] = (source[left] ?? 0) * (1 - fraction) + (source[left + 1] ?? source[left] ?? 0) * fraction;
  }
  return out;
}

/** Any supported WAV → PCM16 mono samples at `sampleRate`. */
export function decodeWavToPcm16(input: Uint8Array, sampleRate: number): Int16Array {
  const wav = parseWav(input);
  const mono = resample(toMonoFloat(wav), wav.sampleRate, sampleRate);
  const out = new Int16Array(mono.length);
  for (let index = 0; index < mono.length; index++) {
    out[index] = Math.max(-32768, Math.min(32767, Math.round((mono[index] ?? 0) * 32767)));
  }
  return out;
}

export function encodeWav(options: { samples: Int16Array; sampleRate: number; channels?: number }): Buffer {
  const channels = options.channels ?? 1;
  const dataBytes = options.samples.length * 2;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8);
  header.write('fmt ', 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(options.sampleRate, 24);
  header.writeUInt32LE(options.sampleRate * channels * 2, 28);
  header.writeUInt16LE(channels * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(dataBytes, 40);
  return Buffer.concat([header, Buffer.from(options.samples.buffer, options.samples.byteOffset, dataBytes)]);
}
