import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/index.js';
import { decodeWavToPcm16, encodeWav, parseWav } from './wav.js';

function wavOf(options: {
  rate: number;
  channels: number;
  bits: number;
  float?: boolean;
  seconds: number;
  hz: number;
}): Buffer {
  const frames = Math.round(options.rate * options.seconds);
  const width = options.bits / 8;
  const data = Buffer.alloc(frames * options.channels * width);
  for (let frame = 0; frame < frames; frame++) {
    const value = 0.5 * Math.sin((2 * Math.PI * options.hz * frame) / options.rate);
    for (let channel = 0; channel < options.channels; channel++) {
      const at = (frame * options.channels + channel) * width;
      if (options.float) data.writeFloatLE(value, at);
      else if (width === 2) data.writeInt16LE(Math.round(value * 32767), at);
      else if (width === 3) data.writeIntLE(Math.round(value * 8388607), at, 3);
      else data.writeInt32LE(Math.round(value * 2147483647), at);
    }
  }
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8);
  header.write('fmt ', 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(options.float ? 3 : 1, 20);
  header.writeUInt16LE(options.channels, 22);
  header.writeUInt32LE(options.rate, 24);
  header.writeUInt32LE(options.rate * options.channels * width, 28);
  header.writeUInt16LE(options.channels * width, 32);
  header.writeUInt16LE(options.bits, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** Frequency estimated from zero crossings. */
function frequencyOf(samples: Int16Array, rate: number): number {
  let crossings = 0;
  for (let index = 1; index < samples.length; index++) {
    if ((samples[index - 1] ?? 0) < 0 !== (samples[index] ?? 0) < 0) crossings++;
  }
  return crossings / 2 / (samples.length / rate);
}

describe('WAV decoding', () => {
  it.each([
    { rate: 44_100, channels: 2, bits: 16 },
    { rate: 48_000, channels: 1, bits: 24 },
    { rate: 8_000, channels: 1, bits: 32 },
    { rate: 22_050, channels: 2, bits: 32, float: true },
  ])('decodes %o to 16 kHz mono and keeps a 440 Hz tone at 440 Hz', (format) => {
    const samples = decodeWavToPcm16(wavOf({ ...format, seconds: 1, hz: 440 }), 16_000);
    expect(samples.length).toBeGreaterThanOrEqual(15_990);
    expect(samples.length).toBeLessThanOrEqual(16_000);
    expect(frequencyOf(samples, 16_000)).toBeGreaterThan(430);
    expect(frequencyOf(samples, 16_000)).toBeLessThan(450);
    const peak = samples.reduce((max, value) => Math.max(max, Math.abs(value)), 0);
    expect(peak).toBeGreaterThan(14_000);
  });

  it('round-trips encodeWav through parseWav', () => {
    const samples = Int16Array.from([0, 1000, -1000, 32767, -32768]);
    const info = parseWav(encodeWav({ samples, sampleRate: 16_000 }));
    expect(info).toMatchObject({ sampleRate: 16_000, channels: 1, bitsPerSample: 16, format: 'pcm' });
    expect(Array.from(new Int16Array(info.data.slice().buffer))).toEqual(Array.from(samples));
  });

  it('refuses what is not a usable WAV with a clear error', () => {
    expect(() => parseWav(Buffer.from('ID3 not a wav'))).toThrow(ValidationError);
    const adpcm = wavOf({ rate: 8000, channels: 1, bits: 16, seconds: 0.1, hz: 100 });
    adpcm.writeUInt16LE(2, 20);
    expect(() => parseWav(adpcm)).toThrow(/unsupported encoding/);
  });
});
