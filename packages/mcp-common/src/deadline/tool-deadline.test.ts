/**
 * The tool-call deadline on fake timers: when it fires, what it says, and that it lets go when disposed.
 */
import { TimeoutError } from '@polymodal/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createToolDeadline, TOOL_CALL_DEADLINE_SECONDS } from './tool-deadline.js';

describe('createToolDeadline', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-03-01T10:00:00Z'));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gives a call 50 s by default and aborts its signal with a deadline timeout when they are used', async () => {
    const caller = new AbortController();
    const deadline = createToolDeadline(caller.signal);
    expect(TOOL_CALL_DEADLINE_SECONDS).toBe(50);
    expect(deadline.at).toBe(Date.now() + 50_000);
    expect(deadline.remainingMs()).toBe(50_000);

    await vi.advanceTimersByTimeAsync(49_999);
    expect(deadline.expired()).toBe(false);
    expect(deadline.signal.aborted).toBe(false);
    expect(deadline.remainingMs()).toBe(1);

    await vi.advanceTimersByTimeAsync(1);
    expect(deadline.expired()).toBe(true);
    expect(deadline.remainingMs()).toBe(0);
    expect(deadline.signal.aborted).toBe(true);
    expect(TimeoutError.isInstance(deadline.signal.reason)).toBe(true);
    expect((deadline.signal.reason as TimeoutError).deadlineReached).toBe(true);
    expect(String(deadline.signal.reason.message)).toMatch(/50 s/);
  });

  it("aborts at once with the caller's own reason when the caller cancels", () => {
    const caller = new AbortController();
    const deadline = createToolDeadline(caller.signal, 5);
    const reason = new Error('user pressed stop');
    caller.abort(reason);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.signal.reason).toBe(reason);
    expect(deadline.expired()).toBe(false);
  });

  it('is aborted from the start when the caller already cancelled', () => {
    const caller = new AbortController();
    caller.abort(new Error('gone'));
    expect(createToolDeadline(caller.signal, 5).signal.aborted).toBe(true);
  });

  it('stops its timer and lets go of the caller once disposed', async () => {
    const caller = new AbortController();
    const deadline = createToolDeadline(caller.signal, 2);
    deadline.dispose();
    expect(vi.getTimerCount()).toBe(0);
    caller.abort(new Error('late'));
    await vi.advanceTimersByTimeAsync(5_000);
    // Disposed: neither the caller nor the clock reaches the signal any more; the clock still tells time.
    expect(deadline.signal.aborted).toBe(false);
    expect(deadline.expired()).toBe(true);
  });

  it('refuses a budget that is not a positive number', () => {
    const caller = new AbortController();
    for (const seconds of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => createToolDeadline(caller.signal, seconds)).toThrow(RangeError);
    }
  });
});
