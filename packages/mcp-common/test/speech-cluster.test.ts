/**
 * synthesize_speech on a cluster: a real PostgreSQL, the sandbox (its key's concurrentSessions is 3) and 3
 * replicas of the built media bin over HTTP, driven round-robin by SDK clients. The replicas are not told
 * the limit: the first 429 teaches it, and the PostgreSQL governor shares it. What a user notices: no
 * errors and no storm of 429s however the parts are spread, and a replica killed while it holds speech
 * slots costs the others a wait of about one lease (POLYMODAL_SPEECH_LEASE_SECONDS, short here), not
 * forever; the killed replica's call, repeated on another replica, resumes the parts already paid for.
 * Counted at the sandbox (its request log). The cluster is started once; the calls are made by clients of
 * both protocol generations, mixed (the governor and the ledger are shared whatever a client speaks).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Cluster, type Replica, resultText, startCluster } from './support/cluster.js';
import { GENERATIONS, type ProtocolGeneration } from './support/server-harness.js';
import { speechSeenBySandbox, textOfParts } from './support/speech-load.js';

const REPLICAS = 3;
const LEASE_SECONDS = 6;

let cluster: Cluster | undefined;

beforeAll(async () => {
  cluster = await startCluster({
    server: 'media',
    replicas: REPLICAS,
    env: { POLYMODAL_SPEECH_LEASE_SECONDS: String(LEASE_SECONDS) },
  });
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
}, 30_000);

interface SpeechAnswer {
  isError: boolean;
  done: boolean | undefined;
  outcome: string | undefined;
  jobId: string | undefined;
  parts: { taskId: string; resumed: boolean }[];
  text: string;
}

/** A client of one protocol generation on one replica. */
interface Caller {
  replica: Replica;
  generation: ProtocolGeneration;
}

async function synthesize(caller: Caller, text: string, waitSeconds: number): Promise<SpeechAnswer> {
  return speechCall(caller, 'synthesize_speech', { text, waitSeconds });
}

/**
 * The answer once the synthesis is over: a call whose wait ran out hands back its job, which get_speech
 * follows on the same replica (on a busy machine 30 parts can take longer than one call may wait).
 */
async function finished(caller: Caller, answer: SpeechAnswer): Promise<SpeechAnswer> {
  let current = answer;
  while (!current.isError && current.done === false && current.jobId) {
    current = await speechCall(caller, 'get_speech', { jobId: current.jobId, waitSeconds: 45 });
  }
  return current;
}

async function speechCall(
  { replica, generation }: Caller,
  name: 'synthesize_speech' | 'get_speech',
  args: Record<string, unknown>,
): Promise<SpeechAnswer> {
  const result = await replica.clients[generation].callTool({ name, arguments: args }, { timeout: 120_000 });
  const structured = result.structuredContent as
    | { done?: boolean; outcome?: string; jobId?: string; parts?: { taskId: string; resumed: boolean }[] }
    | undefined;
  return {
    isError: result.isError === true,
    done: structured?.done,
    outcome: structured?.outcome,
    jobId: structured?.jobId,
    parts: structured?.parts ?? [],
    text: `${generation} on replica ${replica.index}: ${resultText(result)}`,
  };
}

describe('synthesize_speech on 3 media replicas sharing one PostgreSQL', () => {
  it('30 parts in 6 calls round-robin over replicas and generations, limit unknown: never more than 3 unfinished, 0 errors, at most 2 refusals', async () => {
    const { sandbox, replicas } = cluster!;
    const user = sandbox.users[0]!.id;
    const since = Date.now();
    // The first round is held at the sandbox, as a batch meets a platform whose tasks take longer than the
    // burst of submissions: the key's 3 slots are taken when a 4th part is sent, so that part's 429 teaches
    // the limit. (Unheld, a task that finished at the platform before the 4th POST, but was not read yet,
    // lets the 4th in: 4 unfinished as the replicas see them until a later 429 teaches the limit.)
    sandbox.control.holdClock();
    // Every replica gets a call of each generation.
    const calls = Promise.all(
      Array.from({ length: 6 }, async (_, index) => {
        const caller = { replica: replicas[index % REPLICAS]!, generation: GENERATIONS[index % 2]! };
        return finished(caller, await synthesize(caller, textOfParts(5, `meeting ${index + 1}`), 45));
      }),
    );
    try {
      await vi.waitFor(() => expect(speechSeenBySandbox(sandbox, user, since).refused).toBe(1), {
        timeout: 15_000,
        interval: 50,
      });
    } finally {
      sandbox.control.releaseClock();
    }
    const answers = await calls;
    expect(answers.filter((answer) => answer.isError).map((answer) => answer.text)).toEqual([]);
    expect(
      answers.map((answer) => [answer.done, answer.outcome, answer.parts.length]),
      answers.map((answer) => answer.text).join('\n'),
    ).toEqual(Array.from({ length: 6 }, () => [true, 'succeeded', 5]));
    const seen = speechSeenBySandbox(sandbox, user, since);
    expect(seen.created).toBe(30);
    expect(seen.peakUnfinished).toBeLessThanOrEqual(3);
    expect(seen.refused).toBeLessThanOrEqual(2);
    // Every part is a task of its own: nothing was paid twice.
    expect(new Set(answers.flatMap((answer) => answer.parts.map((part) => part.taskId))).size).toBe(30);
    // Sized by the work: 30 parts 3 at a time, each round after the platform's Retry-After (at least 1 s
    // of wall time), on 3 server processes and PostgreSQL; a busy machine took longer than 60 s.
  }, 180_000);

  it('kill -9 of the replica holding every slot: the others wait about one lease, and its call resumes elsewhere, on either generation', async () => {
    const { sandbox, replicas } = cluster!;
    const user = sandbox.users[0]!.id;
    const text = textOfParts(5, 'quarterly review');
    const since = Date.now();
    // Held: the parts the doomed replica sends stay unfinished, so it holds the key's 3 slots when it dies.
    sandbox.control.holdClock();
    // Started by a 2026-07-28 client; resumed by a 2025-11-25 one; repeated by a 2026-07-28 one once done.
    const doomed = replicas[0]!;
    const started = await synthesize({ replica: doomed, generation: '2026-07-28' }, text, 0);
    expect(started.isError, started.text).toBe(false);
    expect(started.done).toBe(false);
    // A part's task id is recorded before its first read: once the sandbox saw 3 tasks read, all 3 are in
    // the database. (Killed between a POST's answer and its record, a part could not be resumed: a repeat
    // would refuse to pay again blindly and ask for allowResubmit, since a speech POST has no idempotency.)
    await vi.waitFor(
      () => {
        const seen = speechSeenBySandbox(sandbox, user, since);
        expect(seen.created).toBe(3);
        expect(new Set(seen.reads.map((read) => read.path)).size).toBe(3);
      },
      { timeout: 15_000, interval: 50 },
    );
    await cluster!.kill(doomed);
    const killedAt = Date.now();
    sandbox.control.releaseClock();

    // The same call on another replica: its 3 slots are still leased to the dead replica, so nothing moves
    // until those leases lapse (2/3 of a lease at the soonest, since they were renewed every third of one).
    // Killed between a status read and its note in the database, the dead replica also leaves that task's
    // read reserved: the survivor waits out the reservation (10 s, core's READ_RESERVATION_MS), not more.
    const survivor = { replica: replicas[1]!, generation: '2025-11-25' } as const;
    const answer = await finished(survivor, await synthesize(survivor, text, 45));
    const finishedAt = Date.now();
    expect(answer.isError, answer.text).toBe(false);
    expect([answer.done, answer.outcome], answer.text).toEqual([true, 'succeeded']);
    expect(answer.jobId).toBe(started.jobId);
    expect(answer.parts.filter((part) => part.resumed)).toHaveLength(3);
    expect(answer.parts).toHaveLength(5);

    const seen = speechSeenBySandbox(sandbox, user, since);
    // 5 parts, 5 paid tasks: the 3 the dead replica sent were resumed, not sent again.
    expect(seen.created).toBe(5);
    expect(new Set(answer.parts.map((part) => part.taskId)).size).toBe(5);
    const firstPostAfterKill = seen.createdRequests.find((request) => request.at >= killedAt);
    const firstReadAfterKill = seen.reads.find((request) => request.at >= killedAt);
    // Not before the lease (bounded generously: half of it), and not forever: within the lease and a margin.
    for (const movedAt of [firstPostAfterKill?.at, firstReadAfterKill?.at]) {
      expect(movedAt).toBeDefined();
      expect(movedAt! - killedAt).toBeGreaterThanOrEqual((LEASE_SECONDS * 1000) / 2);
    }
    expect(finishedAt - killedAt).toBeLessThan(LEASE_SECONDS * 1000 + 20_000);
    expect(seen.peakUnfinished).toBeLessThanOrEqual(3);

    // The same call once more, by a client of the other generation on the third replica: the finished
    // synthesis, every part resumed, nothing paid again.
    const again = await synthesize({ replica: replicas[2]!, generation: '2026-07-28' }, text, 45);
    expect([again.isError, again.done, again.outcome], again.text).toEqual([false, true, 'succeeded']);
    expect(again.jobId).toBe(started.jobId);
    expect(again.parts.map((part) => part.taskId)).toEqual(answer.parts.map((part) => part.taskId));
    expect(speechSeenBySandbox(sandbox, user, since).created).toBe(5);
  }, 120_000);
});
