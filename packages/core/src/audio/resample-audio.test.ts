import { describe, expect, it } from 'vitest';
import { resampleAudio } from './resample-audio.js';

describe('resampleAudio', () => {
  it('keeps a constant level (DC) unchanged away from the edges, at odd ratios too', () => {
    for (const [from, to] of [
      [44_100, 16_000],
      [16_000, 44_100],
      [48_000, 8_000],
      [22_050, 16_000],
    ] as const) {
      const out = resampleAudio(new Float32Array(from).fill(0.25), { from, to });
      expect(out.length).toBe(to);
      for (const value of out.subarray(100, -100)) expect(value).toBeCloseTo(0.25, 4);
    }
  });

  it('returns a copy at the same rate and refuses impossible rates', () => {
    const input = Float32Array.from([0.1, -0.2]);
    const out = resampleAudio(input, { from: 8000, to: 8000 });
    expect(Array.from(out)).toEqual(Array.from(input));
    expect(out).not.toBe(input);
    expect(() => resampleAudio(input, { from: 0, to: 8000 })).toThrow(RangeError);
    expect(() => resampleAudio(input, { from: 8000, to: 16_000.5 })).toThrow(RangeError);
  });
});
