import { describe, expect, it } from 'vitest';
import { beforeFirstPlatformClient, runBeforeFirstPlatformClient } from './before-first-platform-client.js';

describe('beforeFirstPlatformClient', () => {
  it('runs each armed task once, and a task that throws keeps neither the others nor the caller from going on', () => {
    const ran: string[] = [];
    beforeFirstPlatformClient(() => {
      throw new Error('no V8 flags here');
    });
    beforeFirstPlatformClient(() => ran.push('budget'));
    expect(() => runBeforeFirstPlatformClient()).not.toThrow();
    runBeforeFirstPlatformClient();
    expect(ran).toEqual(['budget']);
  });
});
