/**
 * The deferred speech governor passes what a 429 taught to the store it opened before the refused request
 * gives its slot back, so the store can hold the slot until the limit is stored for every replica.
 */
import type { SpeechGovernor } from '@polymodal/core';
import { describe, expect, it } from 'vitest';
import { createDeferredSpeechGovernor } from './create-deferred-speech-governor.js';

/** A store that only notes what it is told: limits learned and slots given back. */
function recordingStore(events: string[]): SpeechGovernor {
  return {
    limit: undefined,
    active: 0,
    queued: 0,
    learn: (limit) => events.push(`learn ${limit}`),
    acquire: async () => ({ release: () => events.push('release') }),
  };
}

describe('createDeferredSpeechGovernor', () => {
  it('an open store learns a limit before the refused slot is given back', async () => {
    const events: string[] = [];
    const store = recordingStore(events);
    const governor = createDeferredSpeechGovernor({ location: 'test', load: async () => store });
    const slot = await governor.acquire();
    // As the speech client answers a 429: learn the limit, then give the slot back, in one go.
    governor.learn(3);
    slot.release();
    expect(events).toEqual(['learn 3', 'release']);
    await governor.close();
  });

  it('a limit learned before the store opened reaches it once it opens', async () => {
    const events: string[] = [];
    const store = recordingStore(events);
    const governor = createDeferredSpeechGovernor({ location: 'test', load: async () => store });
    governor.learn(2);
    expect(governor.limit).toBe(2);
    await governor.acquire();
    expect(events).toEqual(['learn 2']);
    await governor.close();
  });
});
