import { describe, expect, it } from 'vitest';
import { computeBackoffMs } from './compute-backoff-ms.js';

const base = { baseDelayMs: 500, maxDelayMs: 30_000 };

describe('computeBackoffMs', () => {
  it('grows exponentially: the ceiling doubles per attempt', () => {
    const top = () => 0.999_999_9;
    expect(computeBackoffMs(1, { ...base, random: top })).toBe(499);
    expect(computeBackoffMs(2, { ...base, random: top })).toBe(999);
    expect(computeBackoffMs(4, { ...base, random: top })).toBe(3999);
  });

  it('applies full jitter between 0 and the ceiling', () => {
    expect(computeBackoffMs(3, { ...base, random: () => 0 })).toBe(0);
    expect(computeBackoffMs(3, { ...base, random: () => 0.5 })).toBe(1000);
    for (let index = 0; index < 200; index++) {
      const delay = computeBackoffMs(3, base);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(2000);
    }
  });

  it('is capped at maxDelayMs', () => {
    expect(computeBackoffMs(30, { ...base, random: () => 1 })).toBe(30_000);
    expect(computeBackoffMs(1000, { ...base, random: () => 1 })).toBe(30_000);
  });

  it('waits at least a Retry-After, even beyond maxDelayMs, up to 120 s', () => {
    expect(computeBackoffMs(1, { ...base, random: () => 0, retryAfterMs: 7000 })).toBe(7000);
    expect(computeBackoffMs(1, { ...base, maxDelayMs: 1000, random: () => 0, retryAfterMs: 45_000 })).toBe(
      45_000,
    );
    expect(computeBackoffMs(1, { ...base, random: () => 0, retryAfterMs: 10 * 60_000 })).toBe(120_000);
    expect(computeBackoffMs(8, { ...base, random: () => 1, retryAfterMs: 100 })).toBe(30_000);
  });
});
