/**
 * PostgreSQL stopped and restarted under running replicas: 2 replicas of the built meeting bin over HTTP on
 * one database. What a user notices during the outage: a paid call answers a clear error before anything is
 * uploaded (never pay without a record), `/readyz` fails so a load balancer takes the replicas out, and a
 * read-only call that needs no state still works. After the restart (same data, same port), without
 * restarting the replicas: they are ready again, calls succeed, and a call repeated after the outage
 * answers with the job it started before, paying nothing twice. Counted at the sandbox. Each outage is
 * lived through by clients of both protocol generations (the replicas are started, and the database stopped,
 * once).
 */
import path from 'node:path';
import { writeMeetingRecording } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Cluster, type Replica, resultText, startCluster } from './support/cluster.js';
import { GENERATIONS, type ProtocolGeneration } from './support/server-harness.js';
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

async function summarize(replica: Replica, generation: ProtocolGeneration, recording: string) {
  const result = await replica.clients[generation].callTool({
    name: 'summarize_meeting',
    arguments: { path: recording, waitSeconds: 0 },
  });
  const structured = result.structuredContent as { jobId?: string } | undefined;
  return {
    isError: result.isError === true,
    jobId: structured?.jobId,
    text: `${generation}: ${resultText(result)}`,
  };
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
    // Recordings of each generation's calls: one summarized before the outage, one tried during it.
    const before = new Map<ProtocolGeneration, string>();
    const during = new Map<ProtocolGeneration, string>();
    for (const generation of GENERATIONS) {
      before.set(generation, path.join(root, 'media', `before-${generation}.wav`));
      during.set(generation, path.join(root, 'media', `during-${generation}.wav`));
      await writeMeetingRecording(before.get(generation)!, {
        script: [{ speaker: 'Alice', text: `We ship the beta on Friday (${generation}).` }],
      });
      await writeMeetingRecording(during.get(generation)!, {
        script: [{ speaker: 'Bob', text: `The budget review moves to Tuesday (${generation}).` }],
      });
    }
    const started = new Map<ProtocolGeneration, string | undefined>();
    for (const generation of GENERATIONS) {
      const answer = await summarize(first, generation, before.get(generation)!);
      expect(answer.isError, answer.text).toBe(false);
      expect(answer.jobId, generation).toEqual(expect.any(String));
      started.set(generation, answer.jobId);
    }
    expect(sandbox.control.counters().uploads[user]).toBe(GENERATIONS.length);

    await database.stop();

    for (const generation of GENERATIONS) {
      // A paid call: refused before its upload, with an error that names the database, not its password.
      const refused = await summarize(second, generation, during.get(generation)!);
      expect(refused.isError, generation).toBe(true);
      expect(refused.text).toMatch(/could not record this submission.*so it was not sent/s);
      expect(refused.text).toMatch(/Could not reach PostgreSQL/);
      expect(refused.text).not.toContain(database.password);
      const repeated = await summarize(first, generation, before.get(generation)!);
      expect(repeated.isError, generation).toBe(true);
    }
    expect(sandbox.control.counters().uploads[user]).toBe(GENERATIONS.length);
    expect(sandbox.control.requests({ method: 'POST', path: '/uploads$' })).toHaveLength(GENERATIONS.length);

    for (const replica of replicas) {
      const ready = await probe(replica, '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body).not.toContain(database.password);
      expect(ready.body).not.toContain(String(database.port));
      expect((await probe(replica, '/healthz')).status).toBe(200);
    }
    // A read-only tool that needs no state answers from the platform alone.
    for (const generation of GENERATIONS) {
      const listed = await first.clients[generation].callTool({ name: 'list_meetings', arguments: {} });
      expect(listed.isError, `${generation}: ${resultText(listed)}`).not.toBe(true);
    }

    await database.start();

    // The replicas were not restarted: their pools reconnect.
    await vi.waitFor(
      async () => {
        for (const replica of replicas) expect((await probe(replica, '/readyz')).status).toBe(200);
      },
      { timeout: 15_000, interval: 200 },
    );
    for (const generation of GENERATIONS) {
      const resumed = await summarize(second, generation, before.get(generation)!);
      expect(resumed.isError, resumed.text).toBe(false);
      expect(resumed.jobId, generation).toBe(started.get(generation));
      const after = await summarize(second, generation, during.get(generation)!);
      expect(after.isError, after.text).toBe(false);
      expect(after.jobId, generation).toEqual(expect.any(String));
      expect(after.jobId, generation).not.toBe(started.get(generation));
      const again = await summarize(first, generation, during.get(generation)!);
      expect(again.jobId, generation).toBe(after.jobId);
    }
    const counters = sandbox.control.counters();
    expect(counters.uploads[user]).toBe(2 * GENERATIONS.length);
    expect(counters.jobsCreated[user]).toBe(2 * GENERATIONS.length);
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

  async function synthesize(
    replica: Replica,
    generation: ProtocolGeneration,
    text: string,
    waitSeconds: number,
  ) {
    const result = await replica.clients[generation].callTool(
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
      text: `${generation}: ${resultText(result)}`,
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
    // Started by a 2025-11-25 client; refused to both generations during the outage; resumed by a 2026-07-28
    // client after it, while a 2025-11-25 one starts a new synthesis.
    const started = await synthesize(first, '2025-11-25', running, 0);
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

    for (const generation of GENERATIONS) {
      const refused = await synthesize(second, generation, fresh, 10);
      expect(refused.isError, generation).toBe(true);
      // The synthesis is recorded in the ledger before any part takes a slot: the ledger refuses it.
      expect(refused.text).toMatch(/could not record this submission .*so it was not sent/);
      expect(refused.text).not.toContain(database.password);
    }
    // Nothing sent for the new text, and the running synthesis sent no part it could not record.
    expect(speechSeenBySandbox(sandbox, user, since).created).toBe(3);

    await database.start();

    const backAt = Date.now();
    const resumed = await synthesize(second, '2026-07-28', running, 45);
    // Once the database is back the synthesis goes on at once: no slot stays taken for its 30 s lease
    // (a slot given back during the outage is deleted when the database answers; store-postgres tests it).
    expect(Date.now() - backAt).toBeLessThan(15_000);
    expect(resumed.isError, resumed.text).toBe(false);
    expect([resumed.done, resumed.outcome]).toEqual([true, 'succeeded']);
    expect(resumed.parts).toHaveLength(5);
    const again = await synthesize(first, '2025-11-25', fresh, 45);
    expect([again.isError, again.done, again.outcome], again.text).toEqual([false, true, 'succeeded']);
    const seen = speechSeenBySandbox(sandbox, user, since);
    // 7 parts, 7 paid tasks: the 3 sent before the outage were resumed, not sent again (the first replica's
    // own run of that synthesis goes on after the outage too; the two share its parts through the ledger).
    expect(seen.created).toBe(7);
  }, 60_000);
});
