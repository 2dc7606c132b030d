/**
 * The poll loop's time limits: one deadline at a time (the first-read deadline while a call has nothing
 * to show, its own deadline after), and the first-read window of at most one interval of waiting.
 */
import { describe, expect, it } from 'vitest';
import { firstReadWindowEnd, mayRead, pollDeadline, pollLimits } from './poll-deadlines.js';

const start = 1_000_000;
/** A tool call that asked not to wait (`waitSeconds: 0`) with a hard deadline 50 s away; 5 s interval. */
const askedNotToWait = pollLimits({
  deadline: start,
  firstReadDeadline: start + 50_000,
  startedAt: start,
  intervalMs: 5_000,
});

describe('pollLimits', () => {
  it('keeps a first-read deadline after the call’s deadline', () => {
    expect(askedNotToWait).toEqual({
      deadline: start,
      firstReadDeadline: start + 50_000,
      startedAt: start,
      intervalMs: 5_000,
    });
  });

  it('reads no first-read deadline, or one before the call’s deadline, as the call’s deadline', () => {
    const options = { deadline: start + 10_000, startedAt: start, intervalMs: 5_000 };
    expect(pollLimits(options).firstReadDeadline).toBe(start + 10_000);
    expect(pollLimits({ ...options, firstReadDeadline: start + 1_000 }).firstReadDeadline).toBe(
      start + 10_000,
    );
  });
});

describe('pollDeadline: the one deadline every read ends by', () => {
  it('is the first-read deadline while the call has nothing to show, its own deadline after', () => {
    expect(pollDeadline(askedNotToWait, false)).toBe(start + 50_000);
    expect(pollDeadline(askedNotToWait, true)).toBe(start);
  });
});

describe('firstReadWindowEnd: how long a call with nothing to show waits for its first read', () => {
  it('one interval from the start of the call, and the slack of another process’s reservation', () => {
    expect(firstReadWindowEnd(askedNotToWait, 0)).toBe(start + 5_000);
    expect(firstReadWindowEnd(askedNotToWait, 500)).toBe(start + 5_500);
  });

  it('never past the first-read deadline', () => {
    const short = pollLimits({
      deadline: start,
      firstReadDeadline: start + 2_000,
      startedAt: start,
      intervalMs: 5_000,
    });
    expect(firstReadWindowEnd(short, 500)).toBe(start + 2_000);
  });

  it('never before the call’s own deadline', () => {
    const patient = pollLimits({
      deadline: start + 30_000,
      firstReadDeadline: start + 50_000,
      startedAt: start,
      intervalMs: 5_000,
    });
    expect(firstReadWindowEnd(patient, 0)).toBe(start + 30_000);
  });
});

describe('mayRead', () => {
  const chance = { now: start, hasValue: false, firstAttempt: true, heldOffMs: 0 };

  it('with a value: a read due before the deadline, never one at it', () => {
    const limits = pollLimits({ deadline: start + 10_000, startedAt: start, intervalMs: 5_000 });
    expect(mayRead(limits, { ...chance, hasValue: true, dueAt: start + 9_999 })).toBe(true);
    expect(mayRead(limits, { ...chance, hasValue: true, dueAt: start + 10_000 })).toBe(false);
  });

  it('with nothing to show: a first read due within the window, not one due after it', () => {
    expect(mayRead(askedNotToWait, { ...chance, dueAt: start + 5_000 })).toBe(true);
    expect(mayRead(askedNotToWait, { ...chance, dueAt: start + 5_001 })).toBe(false);
    // Another process's reservation holds the call off one interval and its slack.
    expect(mayRead(askedNotToWait, { ...chance, dueAt: start + 5_400, heldOffMs: 500 })).toBe(true);
  });

  it('a first attempt that can start now is made past the window, while the first-read deadline lasts', () => {
    const late = start + 7_000;
    expect(mayRead(askedNotToWait, { ...chance, now: late, dueAt: late })).toBe(true);
    // After a failure, not: a retry that could always "start now" would read on past the window.
    expect(mayRead(askedNotToWait, { ...chance, now: late, dueAt: late, firstAttempt: false })).toBe(false);
    // And never once the first-read deadline has passed.
    expect(mayRead(askedNotToWait, { ...chance, now: start + 50_001, dueAt: start + 50_001 })).toBe(false);
  });
});
