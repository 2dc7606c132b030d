/**
 * The sandbox clock: wall time plus an offset that `advance()` moves forward, and that can be held still.
 * Everything time-based (job progress, receipt and key expiry, rate windows) reads this clock, so tests
 * can jump ahead instead of waiting, and can hold time so that "still running" never races real time.
 */
export interface Clock {
  /** Milliseconds since the epoch, on the sandbox clock. */
  now(): number;
  /** Moves the clock forward (never back); while held, moves the held time. */
  advance(milliseconds: number): void;
  /** Stops the clock: `now()` keeps answering the same time until `advance()` or `release()`. */
  hold(): void;
  /** Lets a held clock run again from the held time: it neither jumps back nor catches up. */
  release(): void;
  isHeld(): boolean;
  /** Released, and back to wall time. */
  reset(): void;
}

export function createClock(wallTime: () => number = Date.now): Clock {
  let offset = 0;
  let heldAt: number | undefined;
  return {
    now: () => heldAt ?? wallTime() + offset,
    advance(milliseconds) {
      if (!Number.isFinite(milliseconds) || milliseconds < 0) {
        throw new RangeError(
          'the sandbox clock only moves forward: give a finite, non-negative number of ms',
        );
      }
      if (heldAt === undefined) offset += milliseconds;
      else heldAt += milliseconds;
    },
    hold() {
      heldAt ??= wallTime() + offset;
    },
    release() {
      if (heldAt === undefined) return;
      // The real time that passed while held is skipped, so the clock resumes exactly where it stood.
      offset = heldAt - wallTime();
      heldAt = undefined;
    },
    isHeld: () => heldAt !== undefined,
    reset() {
      offset = 0;
      heldAt = undefined;
    },
  };
}
