import { describe, expect, it } from 'vitest';
import { createStreamingResampler } from './create-streaming-resampler.js';
import { resampleAudio } from './resample-audio.js';

/** A deterministic test signal: two tones and a little noise. */
function signal(length: number): Float32Array {
  const out = new Float32Array(length);
  let seed = 1;
  for (let index = 0; index < length; index++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    out[index] = 0.4 * Math.sin(index * 0.05) + 0.2 * Math.sin(index * 0.9) + (seed / 2147483648 - 0.5) * 0.1;
  }
  return out;
}

function concat(parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

describe('createStreamingResampler', () => {
  it('gives, block by block, exactly the samples of one pass over the whole signal', () => {
    const input = signal(20_000);
    for (const [from, to] of [
      [48_000, 16_000],
      [44_100, 16_000],
      [8_000, 16_000],
      [22_050, 8_000],
      [16_000, 16_000],
    ] as const) {
      const whole = resampleAudio(input, { from, to });
      expect(whole.length).toBe(Math.floor((input.length * to) / from));
      // Blocks of awkward sizes, single samples and empty blocks included.
      for (const sizes of [[1], [7, 1, 0, 333], [4096], [19_999, 1]]) {
        const resampler = createStreamingResampler({ from, to });
        const parts: Float32Array[] = [];
        let offset = 0;
        for (let turn = 0; offset < input.length; turn++) {
          const size = sizes[turn % sizes.length] as number;
          parts.push(resampler.push(input.subarray(offset, offset + size)));
          offset += size;
        }
        parts.push(resampler.end());
        expect(Array.from(concat(parts))).toEqual(Array.from(whole));
      }
    }
  });

  it('hands out samples as the input comes, keeping only the kernel reach of it', () => {
    const resampler = createStreamingResampler({ from: 48_000, to: 16_000 });
    let out = 0;
    for (let block = 0; block < 100; block++) out += resampler.push(signal(48_000)).length;
    // 100 s in, nearly 100 s out already (the rest waits for the filter's look-ahead), then the tail.
    expect(out).toBeGreaterThan(1_600_000 - 100);
    expect(out + resampler.end().length).toBe(1_600_000);
  });

  it('refuses impossible rates and input after the end', () => {
    expect(() => createStreamingResampler({ from: 0, to: 8000 })).toThrow(RangeError);
    expect(() => createStreamingResampler({ from: 8000, to: 1.5 })).toThrow(RangeError);
    const resampler = createStreamingResampler({ from: 8000, to: 16_000 });
    resampler.end();
    expect(() => resampler.push(new Float32Array(1))).toThrow(/ended/);
  });
});
