/**
 * Lazily computed job progress: a job is a start time and a list of phases; where it stands is computed
 * from the sandbox clock on every look (no timers), so `control.advance()` moves every job at once.
 */

export interface TimelinePhase<Name extends string = string> {
  name: Name;
  /** Length on the sandbox clock, already divided by the speed. */
  ms: number;
}

export interface TimelinePosition<Name extends string = string> {
  /** The current phase, or undefined once every phase is over. */
  phase: Name | undefined;
  /** 0..1 through the current phase. */
  phaseFraction: number;
  /** 0..1 through the whole timeline. */
  fraction: number;
  /** Sandbox time at which the whole timeline ends. */
  endsAt: number;
  done: boolean;
}

export function timelinePosition<Name extends string>(
  startedAt: number,
  phases: readonly TimelinePhase<Name>[],
  now: number,
): TimelinePosition<Name> {
  const total = phases.reduce((sum, phase) => sum + phase.ms, 0);
  const endsAt = startedAt + total;
  let elapsed = Math.max(0, now - startedAt);
  if (elapsed >= total) return { phase: undefined, phaseFraction: 1, fraction: 1, endsAt, done: true };
  const fraction = total === 0 ? 1 : elapsed / total;
  for (const phase of phases) {
    if (elapsed < phase.ms) {
      return {
        phase: phase.name,
        phaseFraction: phase.ms === 0 ? 1 : elapsed / phase.ms,
        fraction,
        endsAt,
        done: false,
      };
    }
    elapsed -= phase.ms;
  }
  return { phase: undefined, phaseFraction: 1, fraction: 1, endsAt, done: true };
}

/** Scales a duration in real seconds by the sandbox speed, in ms. */
export function scaled(seconds: number, speed: number): number {
  return Math.max(1, Math.round((seconds * 1000) / speed));
}
