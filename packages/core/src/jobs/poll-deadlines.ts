/**
 * The poll loop's time limits, as pure functions. A call has one deadline at a time: while it has nothing
 * to show, its first-read deadline (a tool passes its hard deadline there); once it holds a value, its own
 * deadline (the time it must answer by, `waitSeconds` for a tool). Every read it makes must end by that
 * deadline. Waiting for a first read is bounded more tightly, by the first-read window: one interval from
 * the start of the call (and the slack of another process's reservation), never less than the call's
 * deadline — a caller with nothing to show may wait out one interval, never a Retry-After.
 */

export interface PollLimits {
  /** When the call must answer once it holds a value (epoch ms; Infinity for never). */
  deadline: number;
  /** When the call must answer while it has nothing to show: never before `deadline`. */
  firstReadDeadline: number;
  /** When the call started. */
  startedAt: number;
  /** The service's minimum interval between two reads. */
  intervalMs: number;
}

/** The limits of a call; a first-read deadline before the call's deadline (or none) is the call's deadline. */
export function pollLimits(options: {
  deadline: number;
  firstReadDeadline?: number | undefined;
  startedAt: number;
  intervalMs: number;
}): PollLimits {
  const { deadline, startedAt, intervalMs } = options;
  return {
    deadline,
    firstReadDeadline: Math.max(deadline, options.firstReadDeadline ?? deadline),
    startedAt,
    intervalMs,
  };
}

/** The call's one deadline: every read it makes ends by then. */
export function pollDeadline(limits: PollLimits, hasValue: boolean): number {
  return hasValue ? limits.deadline : limits.firstReadDeadline;
}

/**
 * The end of the first-read window: the latest time a call with nothing to show may start its first read.
 * Counted from the start of the call, not from each look: a process that loses the read to another one
 * does not get a second interval. `heldOffMs` is the slack of another process's reservation when one holds
 * this call off (its read holds this one off for an interval and that slack).
 */
export function firstReadWindowEnd(limits: PollLimits, heldOffMs: number): number {
  const oneInterval = limits.startedAt + limits.intervalMs + heldOffMs;
  return Math.min(limits.firstReadDeadline, Math.max(limits.deadline, oneInterval));
}

export interface ReadChance {
  /** When the next read may be sent. */
  dueAt: number;
  now: number;
  hasValue: boolean;
  /** No read of this call has failed yet. */
  firstAttempt: boolean;
  /** See `firstReadWindowEnd`. */
  heldOffMs: number;
}

/** Whether the call makes the read due at `dueAt`, or answers now with what it has. */
export function mayRead(limits: PollLimits, chance: ReadChance): boolean {
  // No extra read at the deadline: nothing is gained by a read the answer cannot wait for.
  if (chance.hasValue) return chance.dueAt < limits.deadline;
  if (chance.now > limits.firstReadDeadline) return false;
  const windowEnd = firstReadWindowEnd(limits, chance.heldOffMs);
  // The first attempt, when it can start now, is made while the call has time left (the bookkeeping before
  // it must not use up a short interval). That grace is one attempt: after a failure, noting it may itself
  // outlast a short interval, and a retry that could always "start now" would keep reading until the
  // failures in a row are thrown.
  const startsBy = chance.firstAttempt ? Math.max(chance.now, windowEnd) : windowEnd;
  return chance.dueAt <= startsBy;
}
