import { describe, expect, it } from 'vitest';
import { NO_ARTIFACTS, planPhases, processStates, runMoment } from './job-timeline.js';

describe('runMoment', () => {
  const run = (speed: number, failure?: { afterState: 'TRANSCRIBING'; message: string }) => ({
    kind: 'process' as const,
    startedAt: 1_000,
    phases: planPhases(processStates(true), 60, speed),
    base: NO_ARTIFACTS,
    ...(failure ? { failure } : {}),
  });

  it('walks the states with rising progress and completes at 100', () => {
    const plan = run(1);
    const total = plan.phases.reduce((sum, phase) => sum + phase.durationMs, 0);
    expect(total).toBeGreaterThan(20_000);
    expect(total).toBeLessThan(40_000);
    let last = -1;
    for (let elapsed = 0; elapsed < total; elapsed += 250) {
      const moment = runMoment(plan, 1_000 + elapsed);
      expect(moment.progress).toBeGreaterThanOrEqual(last);
      expect(moment.progress).toBeLessThan(100);
      last = moment.progress;
    }
    expect(runMoment(plan, 1_000 + total)).toMatchObject({
      status: 'COMPLETED',
      progress: 100,
      finished: { at: 1_000 + total },
    });
  });

  it('scales with speed', () => {
    const slow = run(1).phases.reduce((sum, phase) => sum + phase.durationMs, 0);
    const fast = run(10).phases.reduce((sum, phase) => sum + phase.durationMs, 0);
    expect(fast).toBeCloseTo(slow / 10, -2);
  });

  it('fails after the named phase, without the artifacts of later phases', () => {
    const plan = run(1, { afterState: 'TRANSCRIBING', message: 'decoder crashed' });
    const moment = runMoment(plan, 1_000 + 3_600_000);
    expect(moment).toMatchObject({
      status: 'FAILED',
      errorMessage: 'decoder crashed',
      artifacts: NO_ARTIFACTS,
    });
  });
});
