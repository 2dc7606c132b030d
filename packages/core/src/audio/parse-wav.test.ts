import { describe, expect, it } from 'vitest';
import { toneWav } from '../../test/support/make-wav.js';
import { ValidationError } from '../errors/polymodal-error.js';
import { parseWav } from './parse-wav.js';

describe('parseWav', () => {
  it('reads the format of plain and extensible WAVs, skipping unknown chunks', () => {
    const plain = parseWav(
      toneWav({
        rate: 44_100,
        channels: 2,
        bits: 24,
        seconds: 0.5,
        hz: 440,
        extraChunks: { LIST: Buffer.from('INFOISFT'), odd_: Buffer.from('abc') },
      }),
    );
    expect(plain).toMatchObject({ sampleRate: 44_100, channels: 2, bitsPerSample: 24, format: 'pcm' });
    expect(plain.data.byteLength).toBe(22_050 * 2 * 3);
    expect(plain.durationSeconds).toBeCloseTo(0.5, 6);

    const extensible = parseWav(
      toneWav({ rate: 48_000, channels: 1, bits: 32, float: true, extensible: true, seconds: 0.25, hz: 440 }),
    );
    expect(extensible).toMatchObject({ sampleRate: 48_000, channels: 1, bitsPerSample: 32, format: 'float' });
    expect(extensible.durationSeconds).toBeCloseTo(0.25, 6);
  });

  it('reads up to the end of the file when the data size is larger (streamed recorders)', () => {
    const wav = toneWav({ rate: 8000, channels: 1, bits: 16, seconds: 0.1, hz: 100 });
    wav.writeUInt32LE(0xffffffff, 40);
    expect(parseWav(wav).durationSeconds).toBeCloseTo(0.1, 6);
  });

  it('refuses what is not a usable WAV with a ValidationError saying why', () => {
    expect(() => parseWav(Buffer.from('ID3 not a wav'))).toThrow(ValidationError);
    expect(() => parseWav(Buffer.from('ID3 not a wav'))).toThrow(/no RIFF\/WAVE header/);
    const adpcm = toneWav({ rate: 8000, channels: 1, bits: 16, seconds: 0.1, hz: 100 });
    adpcm.writeUInt16LE(2, 20);
    expect(() => parseWav(adpcm)).toThrow(/unsupported encoding \(format 2, 16-bit\)/);
    const headerOnly = toneWav({ rate: 8000, channels: 1, bits: 16, seconds: 0.1, hz: 100 }).subarray(0, 36);
    expect(() => parseWav(headerOnly)).toThrow(/no data chunk/);
    const float16 = toneWav({ rate: 8000, channels: 1, bits: 16, seconds: 0.1, hz: 100 });
    float16.writeUInt16LE(3, 20);
    expect(() => parseWav(float16)).toThrow(/unsupported encoding \(format 3, 16-bit\)/);
  });
});
