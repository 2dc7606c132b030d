/**
 * Long speech syntheses over MCP against the sandbox, counted where the money is spent: the sandbox's
 * request log of POST /audio/speech. A cancelled call stops the parts not yet sent (parts already sent are
 * kept and resumed), a part refused with a 429 waits for a free slot instead of provoking another round of
 * 429s, two identical calls pay once, and a part the service fails is an outcome, not a tool error.
 * "Still running" is asserted with the sandbox clock held, never by racing it.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { textOfParts } from '@polymodal/mcp-common/testing';
import type { SandboxConfig } from '@polymodal/sandbox';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Connection, type MediaHarness, startMediaHarness } from './support/harness.js';

let harness: MediaHarness | undefined;
const extraConnections: Connection[] = [];

afterEach(async () => {
  for (const connection of extraConnections.splice(0)) await connection.close();
  await harness?.close();
  harness = undefined;
});

async function start(concurrentSessions: number): Promise<MediaHarness> {
  const config: SandboxConfig = { media: { speechSynthesis: { concurrentSessions } } };
  harness = await startMediaHarness({ config });
  return harness;
}

async function connect(overrides: Record<string, string> = {}): Promise<Connection> {
  const connection = await harness!.connect(overrides);
  extraConnections.push(connection);
  return connection;
}

/** The job-creating POSTs the sandbox received, oldest first, with the status each got. */
const speechPosts = () => harness!.sandbox.control.requests({ method: 'POST', path: '/audio/speech$' });
const refused = () => speechPosts().filter((request) => request.status === 429).length;
const tasksCreated = () => harness!.sandbox.control.counters().ttsTasks?.[harness!.sandbox.users[0]!.id] ?? 0;

/** The parts sent (with a task), as list_jobs shows them beneath their synthesis. */
async function recordedSpeechTasks(connection: Connection) {
  const listed = await connection.call('list_jobs', { limit: 100 });
  type Listed = { service: string; parts?: { jobId: string | null; status: string }[] };
  return (listed.structured.jobs as Listed[])
    .filter((job) => job.service === 'speech-text')
    .flatMap((job) => job.parts ?? [])
    .filter((part) => part.jobId !== null);
}

describe('synthesize_speech, a batch of paid parts', () => {
  it('cancelling the call stops the parts not yet sent; the parts already sent finish and a repeat resumes them', async () => {
    await start(3);
    const connection = await connect({ POLYMODAL_TTS_CONCURRENT_SESSIONS: '3' });
    harness!.sandbox.control.holdClock();
    const text = textOfParts(10);
    const controller = new AbortController();
    const call = connection.call(
      'synthesize_speech',
      { text, waitSeconds: 45 },
      { signal: controller.signal },
    );
    const cancelled = expect(call).rejects.toThrow();
    // Three parts fill the key (the held clock keeps them unfinished); seven wait for a slot.
    await vi.waitFor(() => expect(speechPosts()).toHaveLength(3), { timeout: 10_000, interval: 50 });
    controller.abort(new Error('the user pressed stop'));
    await cancelled;

    // The platform finishes the three; the server follows them to the end and records them.
    harness!.sandbox.control.releaseClock();
    await vi.waitFor(
      async () => {
        const recorded = await recordedSpeechTasks(connection);
        expect(recorded.map((job) => job.status)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
      },
      { timeout: 15_000, interval: 200 },
    );
    // Their slots are free now: a batch still running would send its next parts at once.
    await delay(1_500);
    expect(speechPosts()).toHaveLength(3);
    expect(tasksCreated()).toBe(3);

    const again = await connection.call('synthesize_speech', { text, waitSeconds: 45 });
    expect(again.isError, again.text).toBe(false);
    expect(again.structured.done).toBe(true);
    const parts = again.structured.parts as { resumed: boolean }[];
    expect(parts).toHaveLength(10);
    expect(parts.filter((part) => part.resumed)).toHaveLength(3);
    expect(speechPosts()).toHaveLength(10);
    expect(tasksCreated()).toBe(10);
    // Sized by the work: the waits above allow 10 + 15 + 1.5 s and the repeat 45 s, and every round of parts
    // waits the platform's Retry-After (at least 1 s of wall time); a busy machine reached the 20 s default.
  }, 90_000);

  it('a get_speech call that is the last one waiting stops the batch when cancelled, and the synthesis then reads as cancelled', async () => {
    await start(3);
    const connection = await connect({ POLYMODAL_TTS_CONCURRENT_SESSIONS: '3' });
    harness!.sandbox.control.holdClock();
    const started = await connection.call('synthesize_speech', {
      text: textOfParts(6, 'budget'),
      waitSeconds: 0,
    });
    expect(started.structured).toMatchObject({ done: false, status: 'RUNNING' });
    expect(started.structured.next).toMatch(/get_speech/);
    const jobId = started.structured.jobId as string;
    await vi.waitFor(() => expect(speechPosts()).toHaveLength(3), { timeout: 10_000, interval: 50 });

    const controller = new AbortController();
    let following: () => void = () => undefined;
    const followed = new Promise<void>((resolve) => {
      following = resolve;
    });
    const waiting = connection.call(
      'get_speech',
      { jobId, waitSeconds: 45 },
      // The first progress notification says the call is following the batch; then it is cancelled.
      { signal: controller.signal, onprogress: () => following() },
    );
    const cancelled = expect(waiting).rejects.toThrow();
    await followed;
    controller.abort(new Error('stop'));
    await cancelled;

    await vi.waitFor(
      async () => {
        const result = await connection.call('get_speech', { jobId, waitSeconds: 0 });
        expect(result.isError, result.text).toBe(false);
        expect(result.structured).toMatchObject({ done: true, outcome: 'cancelled', status: 'CANCELLED' });
        expect(result.structured.error).toMatch(/3 of 6 parts had been sent/);
      },
      { timeout: 10_000, interval: 100 },
    );
    expect(speechPosts()).toHaveLength(3);
  });

  it('a part refused with a 429 waits for a free slot of the limit it taught: one round of 429s, no more', async () => {
    // The key allows 2 unfinished tasks; the server does not know it and sends 4 parts at once.
    await start(2);
    harness!.sandbox.control.holdClock();
    const text = textOfParts(6, 'workshop');
    const first = await harness!.call('synthesize_speech', { text, waitSeconds: 3 });
    expect(first.isError, first.text).toBe(false);
    expect(first.structured.done).toBe(false);
    expect(first.text).toMatch(/0 of 6 parts done; 4 waiting for a free slot \(key limit 2\)/);
    expect(first.structured.next).toMatch(/get_speech/);
    // The first round, sent before the limit was known: two admitted, two refused; nothing resent since,
    // although the refusals' Retry-After (1 s) passed twice while the key stayed full.
    expect(speechPosts()).toHaveLength(4);
    expect(refused()).toBe(2);

    harness!.sandbox.control.releaseClock();
    const done = await harness!.call('get_speech', { jobId: first.structured.jobId, waitSeconds: 45 });
    expect(done.isError, done.text).toBe(false);
    expect(done.structured).toMatchObject({ done: true, outcome: 'succeeded', status: 'SUCCESS' });
    expect(tasksCreated()).toBe(6);
    expect(refused()).toBe(2);
    expect(speechPosts()).toHaveLength(6 + 2);
    // Sized by the work: the calls may wait 3 + 45 s, and the six parts go two at a time, each round after
    // the platform's Retry-After (at least 1 s of wall time); a busy machine took 12 s of the 20 s default.
  }, 60_000);

  it('two identical calls at once pay for one set of parts', async () => {
    await start(3);
    const text = textOfParts(3, 'newsletter');
    const [first, second] = await Promise.all([
      harness!.call('synthesize_speech', { text, waitSeconds: 45 }),
      harness!.call('synthesize_speech', { text, waitSeconds: 45 }),
    ]);
    expect(first.isError, first.text).toBe(false);
    expect(second.isError, second.text).toBe(false);
    expect(second.structured).toMatchObject({ jobId: first.structured.jobId, done: true });
    expect(second.structured.savedPath).toBe(first.structured.savedPath);
    expect(speechPosts()).toHaveLength(3);
    expect(tasksCreated()).toBe(3);
  });

  it('a part the service fails is done with outcome failed and its reason, not a tool error', async () => {
    await start(3);
    const result = await harness!.call('synthesize_speech', {
      text: 'This sentence [sandbox:fail] cannot be spoken.',
      waitSeconds: 45,
    });
    expect(result.isError, result.text).toBe(false);
    expect(result.structured).toMatchObject({ done: true, outcome: 'failed', status: 'FAILURE' });
    expect(result.structured.error).toMatch(/the model returned no audio/);
    expect(result.structured.savedPath).toBeUndefined();
    expect(result.text).toMatch(/^Speech speech_\S+ failed: task \S+ ended FAILURE/);
  });
});
