import { describe, expect, it } from 'vitest';
import { scaled, timelinePosition } from './job-timeline.js';

describe('timelinePosition', () => {
  const phases = [
    { name: 'queued', ms: 1000 },
    { name: 'processing', ms: 3000 },
  ] as const;

  it('walks through the phases on the clock and ends once every phase is over', () => {
    expect(timelinePosition(0, phases, 500)).toMatchObject({
      phase: 'queued',
      phaseFraction: 0.5,
      done: false,
    });
    expect(timelinePosition(0, phases, 2500)).toMatchObject({ phase: 'processing', phaseFraction: 0.5 });
    expect(timelinePosition(0, phases, 2500).fraction).toBeCloseTo(0.625);
    expect(timelinePosition(0, phases, 4000)).toMatchObject({ phase: undefined, done: true, endsAt: 4000 });
  });

  it('scales real seconds by speed', () => {
    expect(scaled(10, 10)).toBe(1000);
    expect(scaled(0, 1)).toBe(1);
  });
});
