import { describe, expect, it } from 'vitest';
import type { PlatformContext } from '../context/create-platform-context.js';
import { perContext } from './per-context.js';

describe('perContext', () => {
  it('gives every server on one context the same value, and another context its own', () => {
    let created = 0;
    const jobsOf = perContext(() => ({ id: ++created }));
    const shared = {} as PlatformContext;
    const other = {} as PlatformContext;
    // Two requests of one tenant (two servers on its context) see the same running work.
    expect(jobsOf(shared)).toBe(jobsOf(shared));
    expect(jobsOf(other)).not.toBe(jobsOf(shared));
    expect(created).toBe(2);
  });

  it('creates each value from its own context', () => {
    const builtOf = perContext((context: PlatformContext) => ({ of: context }));
    const context = {} as PlatformContext;
    expect(builtOf(context).of).toBe(context);
  });
});
