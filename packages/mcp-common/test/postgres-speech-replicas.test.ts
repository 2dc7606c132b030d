/**
 * Two server contexts on one PostgreSQL database stand in for two replicas (each on a pool of its own) on
 * one platform key whose concurrentSessions is 3. Counted where the key's limit is enforced, the sandbox's
 * request log: together they never keep more than 3 tasks unfinished, and the 429s that the limit costs are
 * one at most (learning it) or none (when POLYMODAL_TTS_CONCURRENT_SESSIONS says it). A context that never
 * synthesises speech never connects to the database.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Sandbox, startSandbox } from '@polymodal/sandbox';
import { serverConnections, startPostgres, type TestPostgres } from '@polymodal/store-postgres/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPlatformContext, type PlatformContext } from '../src/context/create-platform-context.js';
import { speechSeenBySandbox, textOfParts } from './support/speech-load.js';

let database: TestPostgres;
let sandbox: Sandbox;
let root: string;
const contexts: PlatformContext[] = [];

beforeAll(async () => {
  [database, sandbox] = await Promise.all([startPostgres(), startSandbox({ speed: 100 })]);
  root = await mkdtemp(path.join(os.tmpdir(), 'mcp-pg-speech-'));
});
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});
afterAll(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
  await sandbox?.close();
  await database?.destroy();
  if (root) await rm(root, { recursive: true, force: true });
});

/**
 * One replica's context. The process keeps one pool per connection string, so the second replica reaches
 * the same database through an equivalent address: a pool, and a governor, of its own.
 */
/** A replica's context with its platform client built (tool calls build it first; these tests use it directly). */
async function replica(
  name: 'a' | 'b',
  apiKey: string,
  extra: NodeJS.ProcessEnv = {},
): Promise<PlatformContext> {
  const context = createPlatformContext({
    env: {
      POLYMODAL_BASE_URL: sandbox.url,
      POLYMODAL_API_KEY: apiKey,
      POLYMODAL_STATE_DIR: path.join(root, `${name}-${contexts.length}`),
      POLYMODAL_LOG_LEVEL: 'error',
      POLYMODAL_POLL_INTERVAL_MS: '20',
      POLYMODAL_DATABASE_URL: name === 'a' ? database.url : `${database.url}?sslmode=disable`,
      ...extra,
    },
  });
  contexts.push(context);
  await context.loadClient();
  return context;
}

describe('the speech governor shared by replicas through PostgreSQL', () => {
  it('a context that never synthesises speech never connects to the database', async () => {
    const context = await replica('a', sandbox.apiKey);
    expect(context.client.speech.governor.limit).toBeUndefined();
    expect(await serverConnections(database.url)).toBe(0);
  });

  it('two replicas learning the limit: 14 parts, never more than 3 unfinished, at most one 429', async () => {
    const user = sandbox.users[0]!.id;
    const first = await replica('a', sandbox.apiKey);
    const second = await replica('b', sandbox.apiKey);
    // The first round is held at the sandbox, so the 4th part meets 3 busy slots and its 429 teaches the
    // limit. Unheld, a task that finished at the sandbox before the 4th POST (but was not read yet) lets it
    // in: 4 unfinished as the replicas see them until a later 429 (docs/deploy.md, limits learned).
    sandbox.control.holdClock();
    const both = Promise.all([
      first.client.speech.synthesizeText({ text: textOfParts(7, 'planning') }),
      second.client.speech.synthesizeText({ text: textOfParts(7, 'budget') }),
    ]);
    try {
      await vi.waitFor(() => expect(speechSeenBySandbox(sandbox, user).refused).toBe(1), {
        timeout: 15_000,
        interval: 50,
      });
    } finally {
      sandbox.control.releaseClock();
    }
    const [one, two] = await both;
    expect([one.parts.length, two.parts.length]).toEqual([7, 7]);
    const seen = speechSeenBySandbox(sandbox, user);
    expect(seen.created).toBe(14);
    expect(seen.peakUnfinished).toBeLessThanOrEqual(3);
    expect(seen.refused).toBeLessThanOrEqual(1);
    // The replica that was never refused took the limit the other one learned.
    expect([first.client.speech.governor.limit, second.client.speech.governor.limit]).toEqual([3, 3]);
    // Sized by the work: 14 parts go 3 at a time, each round after the platform's Retry-After (at least 1 s
    // of wall time), with WAVs synthesized for real; a busy machine passed the 20 s default.
  }, 90_000);

  it('two replicas told POLYMODAL_TTS_CONCURRENT_SESSIONS=3: 14 parts, never more than 3 unfinished, no 429', async () => {
    const user = sandbox.users[1]!.id;
    const known = { POLYMODAL_TTS_CONCURRENT_SESSIONS: '3' };
    const first = await replica('a', sandbox.apiKey2, known);
    const second = await replica('b', sandbox.apiKey2, known);
    // The first round is held at the sandbox, so the three parts sent at once are unfinished together
    // however slowly they are sent (at speed 100 a part is done 75 ms of sandbox time after its POST).
    sandbox.control.holdClock();
    const both = Promise.all([
      first.client.speech.synthesizeText({ text: textOfParts(7, 'hiring') }),
      second.client.speech.synthesizeText({ text: textOfParts(7, 'roadmap') }),
    ]);
    try {
      await vi.waitFor(() => expect(speechSeenBySandbox(sandbox, user).created).toBe(3), {
        timeout: 15_000,
        interval: 50,
      });
    } finally {
      sandbox.control.releaseClock();
    }
    await both;
    const seen = speechSeenBySandbox(sandbox, user);
    expect(seen.created).toBe(14);
    expect(seen.peakUnfinished).toBe(3);
    expect(seen.refused).toBe(0);
    // Sized by the work, as above.
  }, 90_000);
});
