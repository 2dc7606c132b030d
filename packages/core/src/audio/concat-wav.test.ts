import { describe, expect, it } from 'vitest';
import { toneWav } from '../../test/support/make-wav.js';
import { ValidationError } from '../errors/polymodal-error.js';
import { concatWav } from './concat-wav.js';
import { encodeWav } from './encode-wav.js';
import { parseWav } from './parse-wav.js';

describe('concatWav', () => {
  it('joins WAVs of one format, samples in order', () => {
    const joined = concatWav([
      encodeWav({ samples: Int16Array.from([1, 2]), sampleRate: 8000 }),
      encodeWav({ samples: Int16Array.from([3]), sampleRate: 8000 }),
      encodeWav({ samples: Int16Array.from([4, 5]), sampleRate: 8000 }),
    ]);
    const info = parseWav(joined);
    expect(info).toMatchObject({ sampleRate: 8000, channels: 1, bitsPerSample: 16, format: 'pcm' });
    const bytes = Buffer.from(info.data.buffer, info.data.byteOffset, info.data.byteLength);
    expect([0, 1, 2, 3, 4].map((index) => bytes.readInt16LE(index * 2))).toEqual([1, 2, 3, 4, 5]);
    expect(joined.readUInt32LE(4)).toBe(joined.length - 8);
  });

  it('keeps float and 24-bit layouts', () => {
    const part = toneWav({ rate: 22_050, channels: 2, bits: 32, float: true, seconds: 0.1, hz: 300 });
    const info = parseWav(concatWav([part, part]));
    expect(info).toMatchObject({ sampleRate: 22_050, channels: 2, bitsPerSample: 32, format: 'float' });
    expect(info.durationSeconds).toBeCloseTo(0.2, 6);
  });

  it('refuses parts of different formats, naming the part', () => {
    const a = encodeWav({ samples: new Int16Array(10), sampleRate: 8000 });
    const b = encodeWav({ samples: new Int16Array(10), sampleRate: 16_000 });
    expect(() => concatWav([a, b])).toThrow(ValidationError);
    expect(() => concatWav([a, b])).toThrow(/part 1 is 16000 Hz.*part 0 is 8000 Hz/);
    expect(() => concatWav([])).toThrow(ValidationError);
    expect(() => concatWav([a, Buffer.from('nope')])).toThrow(/no RIFF\/WAVE header/);
  });
});
