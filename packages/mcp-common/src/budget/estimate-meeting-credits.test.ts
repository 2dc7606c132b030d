import { describe, expect, it } from 'vitest';
import { estimateMeetingCredits } from './estimate-meeting-credits.js';
import { readCreditsPerDay } from './read-credits-per-day.js';

describe('estimateMeetingCredits', () => {
  it('charges 4 credits per started minute', () => {
    expect(estimateMeetingCredits(1)).toEqual({ credits: 4, basis: '1 started minute × 4' });
    expect(estimateMeetingCredits(60)).toEqual({ credits: 4, basis: '1 started minute × 4' });
    expect(estimateMeetingCredits(60.01)).toEqual({ credits: 8, basis: '2 started minutes × 4' });
    expect(estimateMeetingCredits(330).credits).toBe(24);
  });

  it('counts a recording of unreadable length as the 2-hour maximum the platform accepts', () => {
    const estimate = estimateMeetingCredits(undefined);
    expect(estimate.credits).toBe(480);
    expect(estimate.basis).toMatch(/could not be read.*2-hour maximum: 120 started minutes × 4/);
  });
});

describe('readCreditsPerDay', () => {
  it('reads POLYMODAL_CREDITS_PER_DAY; unset or empty means no limit', () => {
    expect(readCreditsPerDay({})).toBeUndefined();
    expect(readCreditsPerDay({ POLYMODAL_CREDITS_PER_DAY: ' ' })).toBeUndefined();
    expect(readCreditsPerDay({ POLYMODAL_CREDITS_PER_DAY: '500' })).toBe(500);
    expect(readCreditsPerDay({ POLYMODAL_CREDITS_PER_DAY: '0' })).toBe(0);
  });

  it('refuses a value that is not a whole number of credits, naming the variable', () => {
    for (const value of ['-1', '12.5', 'lots', '1e400']) {
      expect(() => readCreditsPerDay({ POLYMODAL_CREDITS_PER_DAY: value })).toThrow(
        /POLYMODAL_CREDITS_PER_DAY must be a whole number of credits/,
      );
    }
  });
});
