/** The pace of the poll loop: never under the job's Retry-After floor, backing off from it, jitter only lengthening. */
import { describe, expect, it } from 'vitest';
import { grownPause, pauseAtLeastFloor, withJitter } from './poll-pace.js';

/** The speech service's cadence: a quarter longer per read, at most 15 s, up to 10 % jitter. */
const speech = { growth: 1.25, maxIntervalMs: 15_000, jitter: 0.1 };

describe('poll pace', () => {
  it('lifts a pause under the floor to it, and leaves a longer one', () => {
    expect(pauseAtLeastFloor(1_250, 3_000)).toBe(3_000);
    expect(pauseAtLeastFloor(4_000, 3_000)).toBe(4_000);
    expect(pauseAtLeastFloor(1_000, 0)).toBe(1_000);
  });

  it('jitter only lengthens a pause, by up to its fraction', () => {
    expect(withJitter(3_000, 0.1, 0)).toBe(3_000);
    expect(withJitter(3_000, 0.1, 0.5)).toBe(3_150);
    expect(withJitter(3_000, 0.1, 0.999)).toBeLessThan(3_300);
    expect(withJitter(3_000, 0, 0.999)).toBe(3_000);
  });

  it('backs off from the floor to the cadence’s bound, and never shortens a floor above the bound', () => {
    let pause = 1_000;
    const pauses: number[] = [];
    for (let read = 0; read < 12; read++) {
      pause = pauseAtLeastFloor(pause, 3_000);
      pauses.push(pause);
      pause = grownPause(pause, speech, 1_000);
    }
    expect(pauses.slice(0, 4)).toEqual([3_000, 3_750, 4_687.5, 5_859.375]);
    expect(Math.max(...pauses)).toBe(15_000);
    // A Retry-After above the bound (20 s) is the floor all the same.
    expect(pauseAtLeastFloor(grownPause(15_000, speech, 1_000), 20_000)).toBe(20_000);
  });

  it('keeps a fixed interval without growth, and an interval above the bound', () => {
    expect(grownPause(5_000, {}, 5_000)).toBe(5_000);
    expect(grownPause(20_000, { growth: 2, maxIntervalMs: 15_000 }, 20_000)).toBe(20_000);
  });
});
