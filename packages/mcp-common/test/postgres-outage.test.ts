/**
 * PostgreSQL stopped and restarted under running replicas: 2 replicas of the built meeting bin over HTTP on
 * one database. What a user notices during the outage: a paid call answers a clear error before anything is
 * uploaded (never pay without a record), `/readyz` fails so a load balancer takes the replicas out, and a
 * read-only call that needs no state still works. After the restart (same data, same port), without
 * restarting the replicas: they are ready again, calls succeed, and a call repeated after the outage
 * answers with the job it started before, paying nothing twice. Counted at the sandbox.
 */
import path from 'node:path';
import { writeMeetingRecording } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Cluster, type Replica, resultText, startCluster } from './support/cluster.js';
import { speechSeenBySandbox, textOfParts } from './support/speech-load.js';

let cluster: Cluster | undefined;

beforeAll(async () => {
  cluster = await startCluster({ server: 'meeting', replicas: 2 });
  // Held: jobs stay unfinished, so every answer is about the job a call started, not about a result.
  cluster.sandbox.control.holdClock();
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
}, 30_000);

async function summarize(replica: Replica, recording: string) {
  const result = await replica.client.callTool({
    name: 'summarize_meeting',
    arguments: { path: recording, waitSeconds: 0 },
  });
  const structured = result.structuredContent as { jobId?: string } | undefined;
  return { isError: result.isError === true, jobId: structured?.jobId, text: resultText(result) };
}

async function probe(replica: Replica, route: '/readyz' | '/healthz') {
  const response = await fetch(new URL(route, replica.url));
  return { status: response.status, body: await response.text() };
}

describe('PostgreSQL stopped and restarted under 2 running meeting replicas', () => {
  it('clear errors and no upload during the outage, read-only tools work, everything resumes after it, nothing paid twice', async () => {
    const { sandbox, database, root, replicas } = cluster!;
    const [first, second] = [replicas[0]!, replicas[1]!];
    const user = sandbox.users[0]!.id;
    const before = path.join(root, 'media', 'before.wav');
    const during = path.join(root, 'media', 'during.wav');
    await writeMeetingRecording(before, {
      script: [{ speaker: 'Alice', text: 'We ship the beta on Friday.' }],
    });
    await writeMeetingRecording(during, {
      script: [{ speaker: 'Bob', text: 'The budget review moves to Tuesday.' }],
    });
    const started = await summarize(first, before);
    expect(started.isError, started.text).toBe(false);
    expect(started.jobId).toEqual(expect.any(String));
    expect(sandbox.control.counters().uploads[user]).toBe(1);

    await database.stop();

    // A paid call: refused before its upload, with an error that names the database, not its password.
    const refused = await summarize(second, during);
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/could not record this submission.*so it was not sent/s);
    expect(refused.text).toMatch(/Could not reach PostgreSQL/);
    expect(refused.text).not.toContain(database.password);
    const repeated = await summarize(first, before);
    expect(repeated.isError).toBe(true);
    expect(sandbox.control.counters().uploads[user]).toBe(1);
    expect(sandbox.control.requests({ method: 'POST', path: '/uploads$' })).toHaveLength(1);

    for (const replica of replicas) {
      const ready = await probe(replica, '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body).not.toContain(database.password);
      expect(ready.body).not.toContain(String(database.port));
      expect((await probe(replica, '/healthz')).status).toBe(200);
    }
    // A read-only tool that needs no state answers from the platform alone.
    const listed = await first.client.callTool({ name: 'list_meetings', arguments: {} });
    expect(listed.isError, resultText(listed)).not.toBe(true);

    await database.start();

    // The replicas were not restarted: their pools reconnect.
    await vi.waitFor(
      async () => {
        for (const replica of replicas) expect((await probe(replica, '/readyz')).status).toBe(200);
      },
      { timeout: 15_000, interval: 200 },
    );
    const resumed = await summarize(second, before);
    expect(resumed.isError, resumed.text).toBe(false);
    expect(resumed.jobId).toBe(started.jobId);
    const after = await summarize(second, during);
    expect(after.isError, after.text).toBe(false);
    expect(after.jobId).toEqual(expect.any(String));
    expect(after.jobId).not.toBe(started.jobId);
    const again = await summarize(first, during);
    expect(again.jobId).toBe(after.jobId);
    const counters = sandbox.control.counters();
    expect(counters.uploads[user]).toBe(2);
    expect(counters.jobsCreated[user]).toBe(2);
  }, 60_000);
});

describe('PostgreSQL stopped and restarted while 2 media replicas synthesise speech', () => {
  let speechCluster: Cluster | undefined;
  beforeAll(async () => {
    speechCluster = await startCluster({
      server: 'media',
      replicas: 2,
      // The default lease (30 s): slots given back during the outage must not wait it out.
      env: { POLYMODAL_TTS_CONCURRENT_SESSIONS: '3' },
    });
  }, 60_000);
  afterAll(async () => {
    await speechCluster?.stop();
  }, 30_000);

  async function synthesize(replica: Replica, text: string, waitSeconds: number) {
    const result = await replica.client.callTool(
      { name: 'synthesize_speech', arguments: { text, waitSeconds } },
      { timeout: 120_000 },
    );
    const structured = result.structuredContent as
      | { done?: boolean; outcome?: string; parts?: { taskId: string; resumed: boolean }[] }
      | undefined;
    return {
      isError: result.isError === true,
      done: structured?.done,
      outcome: structured?.outcome,
      parts: structured?.parts ?? [],
      text: resultText(result),
    };
  }

  it('a synthesis cut by the outage resumes after it without paying a part twice; a new one is refused before any part', async () => {
    const { sandbox, database, replicas } = speechCluster!;
    const [first, second] = [replicas[0]!, replicas[1]!];
    const user = sandbox.users[0]!.id;
    const running = textOfParts(5, 'outage review');
    const fresh = textOfParts(2, 'standby plan');
    const since = Date.now();
    sandbox.control.holdClock();
    const started = await synthesize(first, running, 0);
    expect(started.isError, started.text).toBe(false);
    // 3 parts sent and recorded (each read once), 2 waiting for a slot.
    await vi.waitFor(
      () => {
        const seen = speechSeenBySandbox(sandbox, user, since);
        expect(seen.created).toBe(3);
        expect(new Set(seen.reads.map((read) => read.path)).size).toBe(3);
      },
      { timeout: 15_000, interval: 50 },
    );

    await database.stop();
    sandbox.control.releaseClock();

    const refused = await synthesize(second, fresh, 10);
    expect(refused.isError).toBe(true);
    // The synthesis is recorded in the ledger before any part takes a slot: the ledger refuses it.
    expect(refused.text).toMatch(/could not record this submission .*so it was not sent/);
    expect(refused.text).not.toContain(database.password);
    // Nothing sent for the new text, and the running synthesis sent no part it could not record.
    expect(speechSeenBySandbox(sandbox, user, since).created).toBe(3);

    await database.start();

    const backAt = Date.now();
    const resumed = await synthesize(second, running, 45);
    // Once the database is back the synthesis goes on at once: no slot stays taken for its 30 s lease
    // (a slot given back during the outage is deleted when the database answers; store-postgres tests it).
    expect(Date.now() - backAt).toBeLessThan(15_000);
    expect(resumed.isError, resumed.text).toBe(false);
    expect([resumed.done, resumed.outcome]).toEqual([true, 'succeeded']);
    expect(resumed.parts).toHaveLength(5);
    const again = await synthesize(first, fresh, 45);
    expect([again.isError, again.done, again.outcome], again.text).toEqual([false, true, 'succeeded']);
    const seen = speechSeenBySandbox(sandbox, user, since);
    // 7 parts, 7 paid tasks: the 3 sent before the outage were resumed, not sent again (the first replica's
    // own run of that synthesis goes on after the outage too; the two share its parts through the ledger).
    expect(seen.created).toBe(7);
  }, 60_000);
});
