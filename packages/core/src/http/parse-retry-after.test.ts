import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './parse-retry-after.js';

const NOW = Date.parse('2025-01-01T12:00:00Z');

describe('parseRetryAfter', () => {
  it('reads delay-seconds', () => {
    expect(parseRetryAfter('0', NOW)).toBe(0);
    expect(parseRetryAfter('5', NOW)).toBe(5000);
    expect(parseRetryAfter(' 12 ', NOW)).toBe(12_000);
    expect(parseRetryAfter('1.5', NOW)).toBe(1500);
  });

  it('reads an HTTP date relative to now', () => {
    expect(parseRetryAfter('Wed, 01 Jan 2025 12:00:30 GMT', NOW)).toBe(30_000);
    expect(parseRetryAfter('Wednesday, 01-Jan-25 12:00:10 GMT', NOW)).toBe(10_000);
  });

  it('gives 0 for a negative delay or a past date', () => {
    expect(parseRetryAfter('-3', NOW)).toBe(0);
    expect(parseRetryAfter('Tue, 31 Dec 2024 12:00:00 GMT', NOW)).toBe(0);
  });

  it('clamps huge values', () => {
    expect(parseRetryAfter('86400', NOW)).toBe(120_000);
    expect(parseRetryAfter('99999999999999999999999', NOW)).toBe(120_000);
    expect(parseRetryAfter('Fri, 01 Jan 2100 00:00:00 GMT', NOW)).toBe(120_000);
    expect(parseRetryAfter('600', NOW, 10_000)).toBe(10_000);
  });

  it('returns undefined for absent or unreadable values', () => {
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfter(null, NOW)).toBeUndefined();
    expect(parseRetryAfter('', NOW)).toBeUndefined();
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
    expect(parseRetryAfter('5 seconds', NOW)).toBeUndefined();
    expect(parseRetryAfter('1e3', NOW)).toBeUndefined();
    expect(parseRetryAfter('Mon, 99 Foo 2025 nonsense', NOW)).toBeUndefined();
  });
});
