import { describe, expect, it } from 'vitest';
import { frequencyOf, rmsOf, toneWav } from '../../test/support/make-wav.js';
import { decodeWavToPcm16 } from './decode-wav-to-pcm16.js';
import { encodeWav } from './encode-wav.js';
import { parseWav } from './parse-wav.js';

describe('decodeWavToPcm16', () => {
  it.each([
    { rate: 44_100, channels: 2, bits: 16 },
    { rate: 48_000, channels: 1, bits: 24 },
    { rate: 8_000, channels: 1, bits: 32 },
    { rate: 11_025, channels: 1, bits: 8 },
    { rate: 22_050, channels: 2, bits: 32, float: true },
    { rate: 32_000, channels: 1, bits: 64, float: true },
    { rate: 48_000, channels: 2, bits: 16, extensible: true },
    { rate: 16_000, channels: 1, bits: 16 },
  ])('decodes %o to 16 kHz mono and keeps a 440 Hz tone at 440 Hz and its level', (format) => {
    const samples = decodeWavToPcm16(toneWav({ ...format, seconds: 1, hz: 440 }), 16_000);
    expect(samples.length).toBe(16_000);
    expect(frequencyOf(samples, 16_000)).toBeGreaterThan(437);
    expect(frequencyOf(samples, 16_000)).toBeLessThan(443);
    // A 0.5 sine has an RMS of 0.3536; 8-bit quantisation and the resampler may move it a little.
    expect(rmsOf(samples)).toBeGreaterThan(0.34);
    expect(rmsOf(samples)).toBeLessThan(0.36);
  });

  it('averages stereo channels to mono', () => {
    const stereo = Buffer.from(toneWav({ rate: 16_000, channels: 2, bits: 16, seconds: 0.1, hz: 200 }));
    const data = parseWav(stereo).data;
    const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    // Silence the right channel: the mono mix must have half the amplitude.
    for (let at = 2; at < view.length; at += 4) view.writeInt16LE(0, at);
    expect(rmsOf(decodeWavToPcm16(stereo, 16_000))).toBeCloseTo(0.3536 / 2, 2);
  });

  it('filters what the target rate cannot carry instead of folding it into the speech band', () => {
    // 7 kHz cannot exist at 8 kHz (Nyquist 4 kHz); a plain linear resampler would alias it to 1 kHz.
    const high = decodeWavToPcm16(
      toneWav({ rate: 48_000, channels: 1, bits: 16, seconds: 1, hz: 7000 }),
      8000,
    );
    expect(rmsOf(high.subarray(200, -200))).toBeLessThan(0.005);
    // While 1 kHz passes through untouched.
    const low = decodeWavToPcm16(
      toneWav({ rate: 48_000, channels: 1, bits: 16, seconds: 1, hz: 1000 }),
      8000,
    );
    expect(rmsOf(low.subarray(200, -200))).toBeCloseTo(0.3536, 2);
    expect(frequencyOf(low, 8000)).toBeCloseTo(1000, -1);
  });

  it('upsamples too (8 kHz telephone audio to 16 kHz)', () => {
    const samples = decodeWavToPcm16(
      toneWav({ rate: 8000, channels: 1, bits: 16, seconds: 1, hz: 300 }),
      16_000,
    );
    expect(samples.length).toBe(16_000);
    expect(frequencyOf(samples, 16_000)).toBeCloseTo(300, -1);
    expect(rmsOf(samples.subarray(200, -200))).toBeCloseTo(0.3536, 2);
  });

  it('round-trips encodeWav through parseWav', () => {
    const samples = Int16Array.from([0, 1000, -1000, 32767, -32768]);
    const info = parseWav(encodeWav({ samples, sampleRate: 16_000 }));
    expect(info).toMatchObject({ sampleRate: 16_000, channels: 1, bitsPerSample: 16, format: 'pcm' });
    expect(Array.from(decodeWavToPcm16(encodeWav({ samples, sampleRate: 16_000 }), 16_000))).toEqual([
      0, 1000, -1000, 32767, -32768,
    ]);
    const bytes = Buffer.from(info.data.buffer, info.data.byteOffset, info.data.byteLength);
    expect([0, 1, 2, 3, 4].map((index) => bytes.readInt16LE(index * 2))).toEqual(Array.from(samples));
  });
});
