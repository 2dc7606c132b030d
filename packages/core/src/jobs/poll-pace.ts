/**
 * The pace of the poll loop, as pure functions: the pause between two reads of a job starts at the
 * service's interval and grows with the cadence up to its bound; it never falls under the job's
 * Retry-After floor (the largest pause the platform asked for), and backs off from that floor; jitter only
 * lengthens it, so that many waiters do not read in step.
 */
import type { PollCadence } from './poll-job.js';

/** The pause before the next read, before jitter: the cadence's pause, lifted to the floor. */
export function pauseAtLeastFloor(pauseMs: number, floorMs: number): number {
  return Math.max(pauseMs, floorMs);
}

/** `pauseMs` lengthened by up to `jitter` (a fraction) of itself; `random` is in [0, 1). */
export function withJitter(pauseMs: number, jitter: number, random: number): number {
  return pauseMs * (1 + jitter * random);
}

/** The pause after a read that did not end the wait: grown by the cadence, within its bound. */
export function grownPause(pauseMs: number, cadence: PollCadence, intervalMs: number): number {
  const grown = pauseMs * (cadence.growth ?? 1);
  return cadence.maxIntervalMs === undefined
    ? grown
    : Math.min(grown, Math.max(cadence.maxIntervalMs, intervalMs));
}
