/**
 * The sandbox clock: wall time plus an offset that `advance()` moves forward. Everything time-based
 * (job progress, receipt and key expiry) reads this clock, so tests can jump ahead instead of waiting.
 */
export interface Clock {
  /** Milliseconds since the epoch, on the sandbox clock. */
  now(): number;
  /** Moves the clock forward (never back). */
  advance(milliseconds: number): void;
  /** Back to wall time. */
  reset(): void;
}

export function createClock(wallTime: () => number = Date.now): Clock {
  let offset = 0;
  return {
    now: () => wallTime() + offset,
    advance(milliseconds) {
      if (!Number.isFinite(milliseconds) || milliseconds < 0) {
        throw new RangeError(
          'the sandbox clock only moves forward: give a finite, non-negative number of ms',
        );
      }
      offset += milliseconds;
    },
    reset() {
      offset = 0;
    },
  };
}
