/**
 * The job engine on a virtual clock (polling) and on real ledgers in temp dirs (claims): what a caller
 * notices — how many reads and submissions happen, and when the answer comes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiError, NotFoundError } from '../errors/api-error.js';
import {
  LedgerError,
  SubmissionInProgressError,
  UncertainSubmissionError,
} from '../errors/polymodal-error.js';
import { createJobLedger, type JobLedger } from '../ledger/create-job-ledger.js';
import { createJobEngine } from './create-job-engine.js';
import type { JobEngine } from './job-engine.js';

interface Job {
  status: string;
}

/** A clock that only moves when the engine sleeps: every wait is exact and instant. */
function virtualClock(start = 1_000_000) {
  let time = start;
  return {
    now: () => time,
    sleep: async (ms: number, signal?: AbortSignal) => {
      signal?.throwIfAborted();
      time += Math.max(0, ms);
    },
    advance: (ms: number) => {
      time += ms;
    },
  };
}

/** A ledger whose `findById` is the test's; every other method is inert. */
function stubLedger(findById: JobLedger['findById']): JobLedger {
  return {
    location: 'memory',
    findByFingerprint: async () => undefined,
    findById,
    list: async () => [],
    page: async () => ({ entries: [] }),
    insert: async () => {
      throw new Error('not used');
    },
    compareAndSet: async () => undefined,
    update: async () => undefined,
    updateById: async () => undefined,
  };
}

/** Resolves once `condition` holds (checked every 10 ms; the test's own timeout bounds it). */
async function until(condition: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 10));
}

const rateLimited = (retryAfterMs: number) =>
  createApiError({ status: 429, method: 'GET', url: '/jobs/j1', body: undefined, retryAfterMs });
const unavailable = () => createApiError({ status: 503, method: 'GET', url: '/jobs/j1', body: undefined });
const notFound = () => createApiError({ status: 404, method: 'GET', url: '/jobs/j1', body: undefined });

/** A platform double whose answers are scripted per read; records when each read happened. */
function scriptedReads(clock: ReturnType<typeof virtualClock>, answers: Array<Job | Error>) {
  const times: number[] = [];
  return {
    times,
    read: async () => {
      times.push(clock.now());
      const answer = answers[Math.min(times.length - 1, answers.length - 1)] as Job | Error;
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
}

describe('poll: one loop, one deadline, one interval', () => {
  const base = { service: 'meeting', id: 'j1', isDone: (job: Job) => job.status === 'COMPLETED' };

  it('reads at once, then every interval, and answers when the job stops', async () => {
    const clock = virtualClock();
    const engine = createJobEngine({ now: clock.now, sleep: clock.sleep });
    const platform = scriptedReads(clock, [
      { status: 'PENDING' },
      { status: 'PENDING' },
      { status: 'COMPLETED' },
    ]);
    const start = clock.now();
    const outcome = await engine.poll({
      ...base,
      read: platform.read,
      status: (job) => job.status,
      intervalMs: 5_000,
      deadline: start + 40_000,
    });
    expect(outcome).toMatchObject({ done: true, value: { status: 'COMPLETED' }, reads: 3 });
    expect(platform.times.map((time) => time - start)).toEqual([0, 5_000, 10_000]);
  });

  it('makes no extra read at the deadline: waitSeconds under the interval gives one read and a handle', async () => {
    const clock = virtualClock();
    const engine = createJobEngine({ now: clock.now, sleep: clock.sleep });
    const platform = scriptedReads(clock, [{ status: 'TRANSCRIBING' }]);
    const start = clock.now();
    const outcome = await engine.poll({
      ...base,
      read: platform.read,
      status: (job) => job.status,
      intervalMs: 5_000,
      deadline: start + 2_000,
    });
    expect(outcome).toMatchObject({ done: false, value: { status: 'TRANSCRIBING' }, reads: 1 });
    // The answer comes at once: nothing is gained by sleeping until a deadline no read can precede.
    expect(clock.now() - start).toBe(0);
  });

  it('a Retry-After longer than the time left ends the wait with a handle, without waiting for it', async () => {
    const clock = virtualClock();
    const engine = createJobEngine({ now: clock.now, sleep: clock.sleep });
    const platform = scriptedReads(clock, [rateLimited(20_000)]);
    const start = clock.now();
    const outcome = await engine.poll({
      ...base,
      read: platform.read,
      status: (job) => job.status,
      intervalMs: 5_000,
      deadline: start + 2_000,
    });
    expect(outcome.done).toBe(false);
    expect(outcome.value).toBeUndefined();
    expect(outcome.transientErrors).toBe(1);
    expect(platform.times).toHaveLength(1);
    expect(clock.now() - start).toBeLessThanOrEqual(2_000);

    // The next call (a new tool call 3 s later) does not read before the Retry-After either.
    clock.advance(3_000);
    const again = await engine.poll({
      ...base,
      read: platform.read,
      status: (job) => job.status,
      intervalMs: 5_000,
      deadline: clock.now() + 2_000,
    });
    expect(again.done).toBe(false);
    expect(platform.times).toHaveLength(1);
  });

  it('never reads before a Retry-After within the wait', async () => {
    const clock = virtualClock();
    const engine = createJobEngine({ now: clock.now, sleep: clock.sleep });
    const platform = scriptedReads(clock, [rateLimited(12_000), { status: 'COMPLETED' }]);
    const start = clock.now();
    const outcome = await engine.poll({
      ...base,
      read: platform.read,
      status: (job) => job.status,
      intervalMs: 5_000,
      deadline: start + 40_000,
    });
    expect(outcome).toMatchObject({ done: true, transientErrors: 1, reads: 1 });
    expect(platform.times.map((time) => time - start)).toEqual([0, 12_000]);
  });

  it('reuses a read less than one interval old across calls, and waits out the rest after a change', async () => {
    const clock = virtualClock();
    const engine = createJobEngine({ now: clock.now, sleep: clock.sleep });
    const platform = scriptedReads(clock, [{ status: 'PENDING' }, { status: 'CANCELLED' }]);
    const options = {
      ...base,
      isDone: () => true,
      read: platform.read,
      status: (job: Job) => job.status,
      intervalMs: 5_000,
    };
    const first = await engine.poll({ ...options, deadline: clock.now() });
    clock.advance(1_000);
    const second = await engine.poll({ ...options, deadline: clock.now() });
    expect(second).toMatchObject({ value: { status: 'PENDING' }, reads: 0 });
    expect(first.reads).toBe(1);

    // An action changed the job: the remembered body no longer describes it, but the interval still holds.
    engine.invalidate('meeting', 'j1');
    const afterChange = await engine.poll({
      ...options,
      deadline: clock.now(),
      firstReadDeadline: clock.now() + 50_000,
    });
    expect(afterChange).toMatchObject({ value: { status: 'CANCELLED' }, reads: 1 });
    expect(platform.times[1] ?? 0).toBe((platform.times[0] ?? 0) + 5_000);
  });

  it('a first read waits at most one interval, also when other processes keep reading the job first', async () => {
    const clock = virtualClock();
    // The ledger as another busy process leaves it: the job was always read a second ago.
    const busyElsewhere = stubLedger(async () => ({
      service: 'meeting',
      fingerprint: 'fp',
      id: 'j1',
      lastStatus: 'TRANSCRIBING',
      createdAt: new Date(0).toISOString(),
      updatedAt: new Date(clock.now()).toISOString(),
      lastReadAt: new Date(clock.now() - 1_000).toISOString(),
      nextReadAt: new Date(clock.now() + 4_000).toISOString(),
      revision: clock.now(),
    }));
    const engine = createJobEngine({ ledger: busyElsewhere, now: clock.now, sleep: clock.sleep });
    const platform = scriptedReads(clock, [{ status: 'TRANSCRIBING' }]);
    const start = clock.now();
    const outcome = await engine.poll({
      ...base,
      read: platform.read,
      status: (job) => job.status,
      intervalMs: 5_000,
      deadline: start,
      firstReadDeadline: start + 50_000,
    });
    expect(outcome).toMatchObject({ done: false, value: undefined, reads: 0 });
    expect(platform.times).toHaveLength(0);
    expect(clock.now() - start).toBeLessThanOrEqual(5_000);
  });

  /**
   * A caller that asked not to wait (deadline now, a later hard deadline) polling through a slow ledger (a
   * loaded disk): each look at it and each write to it takes longer than the whole (test-sized) interval.
   */
  async function pollWithSlowBookkeeping(answers: Array<Job | Error>) {
    const clock = virtualClock();
    const slow: JobLedger = {
      ...stubLedger(async () => {
        clock.advance(20);
        return undefined;
      }),
      updateById: async () => {
        clock.advance(20);
        return undefined;
      },
    };
    const engine = createJobEngine({ ledger: slow, now: clock.now, sleep: clock.sleep });
    const platform = scriptedReads(clock, answers);
    const start = clock.now();
    const outcome = await engine.poll({
      ...base,
      read: platform.read,
      status: (job) => job.status,
      intervalMs: 5,
      deadline: start,
      firstReadDeadline: start + 50_000,
    });
    return { outcome, reads: platform.times.length };
  }

  it('a first read that can start now is made, however long the bookkeeping before it took', async () => {
    const { outcome } = await pollWithSlowBookkeeping([{ status: 'COMPLETED' }]);
    expect(outcome).toMatchObject({ done: true, value: { status: 'COMPLETED' }, reads: 1 });
  });

  it('that grace is one attempt: a first read that fails is not retried past the interval, however slow the bookkeeping', async () => {
    // Noting the failure outlasts the interval, so a retry could always "start now".
    const { outcome, reads } = await pollWithSlowBookkeeping([unavailable()]);
    // A handle with the failure, not the sixth 503 in a row thrown at a caller who asked not to wait.
    expect(outcome).toMatchObject({ done: false, value: undefined, reads: 0, transientErrors: 1 });
    expect(reads).toBe(1);
  });

  it('tolerates and counts transient failures; a non-transient one is thrown', async () => {
    const clock = virtualClock();
    const engine = createJobEngine({ now: clock.now, sleep: clock.sleep });
    const flaky = scriptedReads(clock, [unavailable(), unavailable(), { status: 'COMPLETED' }]);
    const outcome = await engine.poll({
      ...base,
      read: flaky.read,
      status: (job) => job.status,
      intervalMs: 5_000,
      deadline: clock.now() + 60_000,
    });
    expect(outcome).toMatchObject({ done: true, transientErrors: 2, reads: 1 });

    const gone = scriptedReads(clock, [notFound()]);
    await expect(
      engine.poll({
        ...base,
        id: 'j2',
        read: gone.read,
        status: (job) => job.status,
        intervalMs: 5_000,
        deadline: clock.now() + 60_000,
      }),
    ).rejects.toSatisfy(NotFoundError.isInstance);
    expect(gone.times).toHaveLength(1);
  });

  it('waits out any number of 429s within the deadline (the platform pacing, not the job failing)', async () => {
    const clock = virtualClock();
    const engine = createJobEngine({ now: clock.now, sleep: clock.sleep });
    const platform = scriptedReads(clock, [
      ...Array.from({ length: 8 }, () => rateLimited(1_000)),
      { status: 'COMPLETED' },
    ]);
    const outcome = await engine.poll({
      ...base,
      read: platform.read,
      status: (job) => job.status,
      intervalMs: 1_000,
      deadline: clock.now() + 60_000,
    });
    expect(outcome).toMatchObject({ done: true, transientErrors: 8, reads: 1 });
  });

  it('grows the pause with the cadence, up to its bound', async () => {
    const clock = virtualClock();
    const engine = createJobEngine({ now: clock.now, sleep: clock.sleep });
    const platform = scriptedReads(clock, [
      { status: 'STARTED' },
      { status: 'STARTED' },
      { status: 'STARTED' },
      { status: 'STARTED' },
      { status: 'SUCCESS' },
    ]);
    const start = clock.now();
    await engine.poll({
      service: 'speech-synthesis',
      id: 't1',
      isDone: (job: Job) => job.status === 'SUCCESS',
      read: platform.read,
      status: (job) => job.status,
      intervalMs: 1_000,
      cadence: { initialDelayMs: 2_000, growth: 2, maxIntervalMs: 5_000 },
      deadline: start + 60_000,
    });
    expect(platform.times.map((time) => time - start)).toEqual([2_000, 4_000, 8_000, 13_000, 18_000]);
  });
});

describe("poll: the platform's Retry-After is a floor until the job ends", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'polymodal-floor-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /**
   * A speech task as the platform answers it: PENDING with `Retry-After: 3`, then STARTED without the
   * header, then SUCCESS; every read goes through `observe`, as every client's does. `reads` notes when
   * each read was sent and the Retry-After its answer carried.
   */
  function speechTask(clock: ReturnType<typeof virtualClock>, answers: Array<[string, string?]>) {
    const reads: Array<{ at: number; retryAfterMs: number }> = [];
    const pollOn = (engine: JobEngine, deadline: number) =>
      engine.poll({
        service: 'speech-synthesis',
        id: 't1',
        intervalMs: 1_000,
        // The speech service's cadence: a quarter longer per read, at most 15 s, up to 10 % jitter.
        cadence: { growth: 1.25, maxIntervalMs: 15_000, jitter: 0.1 },
        deadline,
        isDone: (job: Job) => job.status === 'SUCCESS',
        status: (job: Job) => job.status,
        read: async () => {
          const response = await engine.observe({
            service: 'speech-synthesis',
            id: 't1',
            read: async () => {
              const [status, retryAfter] = answers[Math.min(reads.length, answers.length - 1)] ?? ['SUCCESS'];
              reads.push({ at: clock.now(), retryAfterMs: Number(retryAfter ?? 0) * 1_000 });
              const headers: Record<string, string> = retryAfter ? { 'retry-after': retryAfter } : {};
              return { headers, data: { status } };
            },
            seen: (answer) => ({ status: answer.data.status, body: answer.data }),
          });
          return response.data;
        },
      });
    return { reads, pollOn };
  }

  /** Every read came no sooner after the one before than the largest Retry-After answered before it. */
  function expectFloorKept(reads: Array<{ at: number; retryAfterMs: number }>) {
    let floorMs = 0;
    for (let index = 1; index < reads.length; index++) {
      floorMs = Math.max(floorMs, reads[index - 1]?.retryAfterMs ?? 0);
      const gap = (reads[index]?.at ?? 0) - (reads[index - 1]?.at ?? 0);
      expect(gap, `read ${index + 1}`).toBeGreaterThanOrEqual(floorMs);
    }
  }

  const answers: Array<[string, string?]> = [
    ['PENDING', '3'],
    ['STARTED'],
    ['STARTED'],
    ['STARTED'],
    ['SUCCESS'],
  ];

  it('a STARTED answer without the header does not bring the pace back under an earlier Retry-After', async () => {
    const clock = virtualClock(Date.now());
    const ledger = createJobLedger({ dir: path.join(dir, 'jobs') });
    await ledger.insert({ service: 'speech-synthesis', fingerprint: 'fp', id: 't1', lastStatus: 'PENDING' });
    // Jitter at its largest and at none: it may only lengthen a pause.
    for (const random of [() => 0, () => 0.999]) {
      const engine = createJobEngine({ ledger, now: clock.now, sleep: clock.sleep, random });
      const task = speechTask(clock, answers);
      const outcome = await task.pollOn(engine, clock.now() + 60_000);
      expect(outcome).toMatchObject({ done: true, reads: 5 });
      expectFloorKept(task.reads);
      clock.advance(60_000);
    }
    expect((await ledger.findById('speech-synthesis', 't1'))?.retryAfterFloorMs).toBe(3_000);
  });

  it('without a ledger too, within one process', async () => {
    const clock = virtualClock();
    const engine = createJobEngine({ now: clock.now, sleep: clock.sleep, random: () => 0 });
    const task = speechTask(clock, answers);
    expect(await task.pollOn(engine, clock.now() + 60_000)).toMatchObject({ done: true, reads: 5 });
    expectFloorKept(task.reads);
    // Backing off from the floor: 3 s, then a quarter longer per read.
    const gaps = task.reads.slice(1).map((read, index) => read.at - (task.reads[index]?.at ?? 0));
    expect(gaps).toEqual([3_000, 3_750, 4_687.5, 5_859.375]);
  });

  it('after a restart: a new engine over the same ledger keeps the floor the first one learnt', async () => {
    const clock = virtualClock(Date.now());
    const ledger = createJobLedger({ dir: path.join(dir, 'jobs') });
    await ledger.insert({ service: 'speech-synthesis', fingerprint: 'fp', id: 't1', lastStatus: 'PENDING' });
    const task = speechTask(clock, answers);
    // The first process reads PENDING (Retry-After: 3) and STARTED, then its call ends and it stops.
    const first = createJobEngine({ ledger, now: clock.now, sleep: clock.sleep, random: () => 0 });
    expect(await task.pollOn(first, clock.now() + 4_000)).toMatchObject({ done: false, reads: 2 });
    // A new process, with nothing in memory, continues the job on the ledger alone.
    const restarted = createJobEngine({
      ledger: createJobLedger({ dir: path.join(dir, 'jobs') }),
      now: clock.now,
      sleep: clock.sleep,
      random: () => 0,
    });
    expect(await task.pollOn(restarted, clock.now() + 60_000)).toMatchObject({ done: true, reads: 3 });
    expect(task.reads).toHaveLength(5);
    expectFloorKept(task.reads);
  });
});

describe('start: claim before paying', () => {
  let dir: string;
  let ledger: JobLedger;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'polymodal-engine-'));
    ledger = createJobLedger({ dir: path.join(dir, 'jobs') });
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A submission that takes until `release()`; counts how often the paid work ran. */
  function slowSubmission() {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let runs = 0;
    return {
      get runs() {
        return runs;
      },
      release: () => release(),
      submit: async () => {
        runs += 1;
        await gate;
        return { id: `job-${runs}`, status: 'PENDING' };
      },
    };
  }

  it('identical starts in one process join the one in flight: one paid submission', async () => {
    const engine = createJobEngine({ ledger });
    const work = slowSubmission();
    const calls = Array.from({ length: 5 }, () =>
      engine.start({ service: 'meeting', fingerprint: 'fp', resendable: true, submit: work.submit }),
    );
    work.release();
    const started = await Promise.all(calls);
    expect(work.runs).toBe(1);
    expect(new Set(started.map((item) => item.id))).toEqual(new Set(['job-1']));
    expect(started.filter((item) => item.joined)).toHaveLength(4);
  });

  it('another process waits for the claim, then resumes the job instead of paying again', async () => {
    const first = createJobEngine({ ledger });
    // The second process's ledger counts its looks, so the test knows when it is waiting on the claim.
    const secondLedger = createJobLedger({ dir: path.join(dir, 'jobs') });
    let looks = 0;
    const counted: JobLedger = {
      ...secondLedger,
      findByFingerprint: (service, fingerprint) => {
        looks += 1;
        return secondLedger.findByFingerprint(service, fingerprint);
      },
    };
    const second = createJobEngine({ ledger: counted });
    const work = slowSubmission();
    const secondWork = slowSubmission();
    const owner = first.start({
      service: 'meeting',
      fingerprint: 'fp',
      resendable: true,
      submit: work.submit,
    });
    await until(async () => (await ledger.findByFingerprint('meeting', 'fp'))?.claim != null);
    const joiner = second.start({
      service: 'meeting',
      fingerprint: 'fp',
      resendable: true,
      submit: secondWork.submit,
    });
    await until(async () => looks >= 2);
    work.release();
    secondWork.release();
    const [a, b] = await Promise.all([owner, joiner]);
    expect(work.runs).toBe(1);
    expect(secondWork.runs).toBe(0);
    expect(b).toMatchObject({ id: a.id, resumed: true, joined: true });
  });

  it('while another process reads a job, this one waits out the interval that read took instead of giving up at once', async () => {
    await ledger.insert({ service: 'meeting', fingerprint: 'fp', id: 'j1', lastStatus: 'PENDING' });
    const first = createJobEngine({ ledger });
    const second = createJobEngine({ ledger: createJobLedger({ dir: path.join(dir, 'jobs') }) });
    let release: () => void = () => undefined;
    const slowRead = new Promise<void>((resolve) => {
      release = resolve;
    });
    const reads: string[] = [];
    const options = {
      service: 'meeting',
      id: 'j1',
      isDone: () => false,
      status: (job: Job) => job.status,
      intervalMs: 200,
    };
    // The first process starts a read that takes a while, with a long deadline of its own.
    const firstPoll = first.poll({
      ...options,
      deadline: Date.now(),
      firstReadDeadline: Date.now() + 30_000,
      read: async () => {
        reads.push('first');
        await slowRead;
        return { status: 'TRANSCRIBING' };
      },
    });
    // Sent, so its reservation is written.
    await until(() => reads.length === 1);
    // The second process may wait 2 s, much less than that read's own deadline: it reads itself one
    // interval after the first read was sent, not at once beside it.
    const secondPoll = second.poll({
      ...options,
      deadline: Date.now() + 2_000,
      firstReadDeadline: Date.now() + 10_000,
      isDone: (job: Job) => job.status === 'TRANSLATING',
      read: async () => {
        reads.push('second');
        return { status: 'TRANSLATING' };
      },
    });
    setTimeout(release, 300);
    const [a, b] = await Promise.all([firstPoll, secondPoll]);
    expect(a.value).toEqual({ status: 'TRANSCRIBING' });
    expect(b.value).toEqual({ status: 'TRANSLATING' });
    expect(reads).toEqual(['first', 'second']);
  });

  /**
   * The ledger of one process whose first look at a job is slow (a loaded disk): it takes 100 ms of the
   * clock and then waits for the test's `release()`, having read the entry before the wait (`stale`) or
   * reading it after (`fresh`). `looked()`: that look has answered.
   */
  function slowFirstLook(clock: ReturnType<typeof virtualClock>, read: 'stale' | 'fresh') {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let looks = 0;
    let holding = false;
    let looked = false;
    const slow: JobLedger = {
      ...ledger,
      findById: async (service, id) => {
        looks += 1;
        if (looks > 1) return ledger.findById(service, id);
        clock.advance(100);
        const before = read === 'stale' ? await ledger.findById(service, id) : undefined;
        holding = true;
        await released;
        const entry = read === 'stale' ? before : await ledger.findById(service, id);
        looked = true;
        return entry;
      },
    };
    return { ledger: slow, release: () => release(), holding: () => holding, looked: () => looked };
  }

  /** A poll of a finished job by a caller that asked not to wait (`get_meeting` with waitSeconds 0). */
  function askNotToWait(clock: ReturnType<typeof virtualClock>, read: () => Promise<Job>, id = 'j1') {
    return {
      service: 'meeting',
      id,
      intervalMs: 5_000,
      isDone: (job: Job) => job.status === 'COMPLETED',
      status: (job: Job) => job.status,
      deadline: clock.now(),
      firstReadDeadline: clock.now() + 50_000,
      read,
    };
  }

  it('a caller that asked not to wait, looking at the ledger while another caller of this process takes the read, joins that read', async () => {
    await ledger.insert({ service: 'meeting', fingerprint: 'fp', id: 'j1', lastStatus: 'PROCESSING' });
    const clock = virtualClock(Date.now());
    const look = slowFirstLook(clock, 'fresh');
    const engine = createJobEngine({ ledger: look.ledger, now: clock.now, sleep: clock.sleep });
    let answer: () => void = () => undefined;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const sent: number[] = [];
    const read = async () => {
      sent.push(clock.now());
      await answered;
      return { status: 'COMPLETED' };
    };
    const start = clock.now();
    const slow = engine.poll(askNotToWait(clock, read));
    await until(look.holding);
    // Another call takes the read (in the ledger too) and sends it while the first one is still looking.
    const fast = engine.poll(askNotToWait(clock, read));
    await until(() => sent.length === 1);
    look.release();
    // The look finds that reservation: this process's own read, not another process's that holds this one
    // off. (Once it has answered, the caller joins the read or gives up before the next timer.)
    await until(look.looked);
    answer();
    expect(await fast).toMatchObject({ done: true, reads: 1 });
    expect(await slow).toMatchObject({ done: true, value: { status: 'COMPLETED' } });
    expect(sent).toEqual([start + 100]);
    expect(clock.now() - start).toBe(100);
  });

  it.each(['stale', 'fresh'] as const)(
    'a caller that asked not to wait, whose look at the ledger (%s) outlasts another caller’s read of the finished job, answers with that read',
    async (kind) => {
      await ledger.insert({ service: 'meeting', fingerprint: 'fp', id: 'j1', lastStatus: 'PROCESSING' });
      const clock = virtualClock(Date.now());
      const look = slowFirstLook(clock, kind);
      const engine = createJobEngine({ ledger: look.ledger, now: clock.now, sleep: clock.sleep });
      const sent: number[] = [];
      const read = async () => {
        sent.push(clock.now());
        return { status: 'COMPLETED' };
      };
      const start = clock.now();
      const slow = engine.poll(askNotToWait(clock, read));
      await until(look.holding);
      expect(await engine.poll(askNotToWait(clock, read))).toMatchObject({ done: true, reads: 1 });
      look.release();
      // Not "nothing to show yet", nor a second read of a finished job an interval later: the read just made.
      expect(await slow).toMatchObject({ done: true, value: { status: 'COMPLETED' }, reads: 0 });
      expect(sent).toEqual([start + 100]);
      expect(clock.now() - start).toBe(100);
    },
  );

  /** A read of j1 that is sent at once and answered when the test says (COMPLETED); `sent` notes when. */
  function heldRead(clock: ReturnType<typeof virtualClock>, sent: string[]) {
    const start = clock.now();
    let answer: () => void = () => undefined;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    return {
      answer: () => answer(),
      read: async () => {
        sent.push(`j1 at +${clock.now() - start}`);
        await answered;
        return { status: 'COMPLETED' };
      },
    };
  }

  it('a read in flight here is joined at once by a caller that asked not to wait, also after reads of other jobs', async () => {
    await ledger.insert({ service: 'meeting', fingerprint: 'fp1', id: 'j1', lastStatus: 'PROCESSING' });
    await ledger.insert({ service: 'meeting', fingerprint: 'fp2', id: 'j2', lastStatus: 'PROCESSING' });
    const clock = virtualClock(Date.now());
    const start = clock.now();
    let looks = 0;
    const counted: JobLedger = {
      ...ledger,
      findById: async (service, id) => {
        const entry = await ledger.findById(service, id);
        if (id === 'j1') looks += 1;
        return entry;
      },
    };
    const engine = createJobEngine({ ledger: counted, now: clock.now, sleep: clock.sleep });
    const sent: string[] = [];
    const j1 = heldRead(clock, sent);
    const first = engine.poll(askNotToWait(clock, j1.read));
    await until(() => sent.length === 1);
    // A read of another job meanwhile: this process forgets what it no longer needs, not the read in flight.
    const other = async () => {
      sent.push('j2');
      return { status: 'PROCESSING' };
    };
    await engine.poll(askNotToWait(clock, other, 'j2'));
    const looked = looks;
    const second = engine.poll(askNotToWait(clock, j1.read));
    // Its look is at the entry as this process took the read, not at the ledger again (no I/O): by the next
    // timer, the caller has joined the read (or started waiting).
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(looks).toBe(looked);
    j1.answer();
    expect(await first).toMatchObject({ done: true, reads: 1 });
    expect(await second).toMatchObject({ done: true, value: { status: 'COMPLETED' } });
    // One read of j1, and no waiting: not one interval and the slack, as for another process's read.
    expect(sent).toEqual(['j1 at +0', 'j2']);
    expect(clock.now() - start).toBe(0);
  });

  it('a read in flight here is joined at once by a caller whose look at the ledger saw an earlier, slow reservation of it', async () => {
    await ledger.insert({ service: 'meeting', fingerprint: 'fp', id: 'j1', lastStatus: 'PROCESSING' });
    const clock = virtualClock(Date.now());
    const start = clock.now();
    const sent: string[] = [];
    const j1 = heldRead(clock, sent);
    let second: ReturnType<JobEngine['poll']> | undefined;
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding = false;
    let looked = false;
    let reservations = 0;
    let engine: JobEngine | undefined;
    const slow: JobLedger = {
      ...ledger,
      // The first reservation of the read takes 700 ms, past its slack (500 ms): it is made again, then sent.
      // Between the two, another caller looks at the ledger (and sees the first), slowly.
      compareAndSet: async (...args) => {
        const written = await ledger.compareAndSet(...args);
        reservations += 1;
        if (reservations === 1) {
          second = engine?.poll(askNotToWait(clock, j1.read));
          await until(() => holding);
          clock.advance(700);
        }
        return written;
      },
      findById: async (service, id) => {
        const entry = await ledger.findById(service, id);
        if (reservations === 1 && !holding) {
          holding = true;
          await released;
          looked = true;
        }
        return entry;
      },
    };
    engine = createJobEngine({ ledger: slow, now: clock.now, sleep: clock.sleep });
    const first = engine.poll(askNotToWait(clock, j1.read));
    await until(() => sent.length === 1);
    release();
    // Once its look has answered (with the first reservation), the caller has joined the read (or started waiting).
    await until(() => looked);
    j1.answer();
    expect(await first).toMatchObject({ done: true, reads: 1 });
    expect(await second).toMatchObject({ done: true, value: { status: 'COMPLETED' } });
    expect(sent).toEqual(['j1 at +700']);
    expect(clock.now() - start).toBe(700);
  });

  it('a read in flight here is joined by a caller that asked not to wait and saw its reservation in the ledger before the reserving caller heard back', async () => {
    await ledger.insert({ service: 'meeting', fingerprint: 'fp', id: 'j1', lastStatus: 'PROCESSING' });
    const clock = virtualClock(Date.now());
    const start = clock.now();
    const sent: string[] = [];
    const j1 = heldRead(clock, sent);
    let looking: () => void = () => undefined;
    const mayLook = new Promise<void>((resolve) => {
      looking = resolve;
    });
    let looks = 0;
    let looked = false;
    const racing: JobLedger = {
      ...ledger,
      // The second caller's look waits for the first caller's reservation to be written, and answers before the
      // database's answer to that write reaches the first caller (two connections of one pool).
      findById: async (service, id) => {
        looks += 1;
        if (looks !== 1) return ledger.findById(service, id);
        await mayLook;
        const entry = await ledger.findById(service, id);
        looked = true;
        return entry;
      },
      compareAndSet: async (...args) => {
        const written = await ledger.compareAndSet(...args);
        looking();
        await until(() => looked);
        return written;
      },
    };
    const engine = createJobEngine({ ledger: racing, now: clock.now, sleep: clock.sleep });
    // The second caller starts first; the first takes the read a millisecond later, while it looks.
    const second = engine.poll(askNotToWait(clock, j1.read));
    await until(() => looks === 1);
    clock.advance(1);
    const first = engine.poll(askNotToWait(clock, j1.read));
    await until(() => sent.length === 1);
    j1.answer();
    expect(await first).toMatchObject({ done: true, reads: 1 });
    // Not "nothing to show yet" because the reservation looked like another process's.
    expect(await second).toMatchObject({ done: true, value: { status: 'COMPLETED' } });
    expect(sent).toEqual(['j1 at +1']);
    expect(clock.now() - start).toBe(1);
  });

  it('a reader that died mid-read holds the others off for one interval at most, not their whole wait', async () => {
    await ledger.insert({ service: 'meeting', fingerprint: 'fp', id: 'j1', lastStatus: 'PENDING' });
    const clock = virtualClock();
    const start = clock.now();
    const base = {
      service: 'meeting',
      id: 'j1',
      status: (job: Job) => job.status,
      intervalMs: 2_000,
      deadline: start + 45_000,
    };
    // The dying process reserves its read, sends it, and never answers (killed before it notes the read).
    const dying = createJobEngine({ ledger, now: clock.now, sleep: clock.sleep });
    let sent = false;
    void dying.poll({
      ...base,
      isDone: () => false,
      read: () => {
        sent = true;
        return new Promise<Job>(() => undefined);
      },
    });
    // Sent, so its reservation is written (the entry is written before the ledger's lock is let go).
    await until(() => sent);
    const survivor = createJobEngine({
      ledger: createJobLedger({ dir: path.join(dir, 'jobs') }),
      now: clock.now,
      sleep: clock.sleep,
    });
    const platform = scriptedReads(clock, [{ status: 'COMPLETED' }]);
    const outcome = await survivor.poll({
      ...base,
      isDone: (job: Job) => job.status === 'COMPLETED',
      read: platform.read,
    });
    expect(outcome).toMatchObject({ done: true, reads: 1 });
    const waited = platform.times[0]! - start;
    expect(waited).toBeGreaterThanOrEqual(base.intervalMs);
    expect(waited).toBeLessThanOrEqual(base.intervalMs + 1_000);
  });

  it('a caller whose time runs out gets SubmissionInProgressError; the submission goes on and is joined', async () => {
    const engine = createJobEngine({ ledger });
    const work = slowSubmission();
    const late = engine.start({
      service: 'meeting',
      fingerprint: 'fp',
      resendable: true,
      deadline: Date.now() + 100,
      submit: work.submit,
    });
    await expect(late).rejects.toSatisfy(SubmissionInProgressError.isInstance);
    const again = engine.start({
      service: 'meeting',
      fingerprint: 'fp',
      resendable: true,
      submit: work.submit,
    });
    work.release();
    expect(await again).toMatchObject({ id: 'job-1', joined: true });
    expect(work.runs).toBe(1);
  });

  it('takes over a claim whose owner died, and refuses an uncertain non-resendable one', async () => {
    const engine = createJobEngine({ ledger });
    const expired = new Date(Date.now() - 1_000).toISOString();
    await ledger.insert({
      service: 'meeting',
      fingerprint: 'fp',
      id: null,
      lastStatus: 'SUBMITTING',
      claim: { owner: 'elsewhere/1/x', expiresAt: expired },
    });
    const work = slowSubmission();
    work.release();
    expect(
      await engine.start({ service: 'meeting', fingerprint: 'fp', resendable: true, submit: work.submit }),
    ).toMatchObject({ id: 'job-1', resumed: false });

    await ledger.insert({
      service: 'video',
      fingerprint: 'fp',
      id: null,
      lastStatus: 'SUBMITTING',
      claim: { owner: 'elsewhere/1/x', expiresAt: expired },
    });
    await expect(
      engine.start({ service: 'video', fingerprint: 'fp', submit: work.submit }),
    ).rejects.toSatisfy(UncertainSubmissionError.isInstance);
    expect(work.runs).toBe(1);
  });

  it('a claim that cannot be written refuses the submission before anything is paid', async () => {
    const broken: JobLedger = {
      ...ledger,
      location: '/nowhere',
      findByFingerprint: async () => undefined,
      insert: async () => {
        throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      },
    };
    const engine = createJobEngine({ ledger: broken, log: { warn: () => undefined } });
    const work = slowSubmission();
    await expect(
      engine.start({ service: 'meeting', fingerprint: 'fp', resendable: true, submit: work.submit }),
    ).rejects.toSatisfy(LedgerError.isInstance);
    expect(work.runs).toBe(0);
  });

  it('a job another process read moments ago is resumed on that read, without reading it again', async () => {
    const now = Date.now();
    await ledger.insert({
      service: 'meeting',
      fingerprint: 'fp',
      id: 'j1',
      lastStatus: 'TRANSCRIBING',
      lastReadAt: new Date(now - 1_000).toISOString(),
      nextReadAt: new Date(now + 4_000).toISOString(),
    });
    const engine = createJobEngine({ ledger });
    let checks = 0;
    const current = async () => {
      checks += 1;
      return 'TRANSLATING';
    };
    const work = slowSubmission();
    const resumed = await engine.start({
      service: 'meeting',
      fingerprint: 'fp',
      resendable: true,
      current,
      submit: work.submit,
    });
    expect(resumed).toMatchObject({ id: 'j1', status: 'TRANSCRIBING', resumed: true });
    expect(checks).toBe(0);
    // After this process changed the job (cancel, retry…), the recorded status is read again.
    engine.invalidate('meeting', 'j1');
    const again = await engine.start({
      service: 'meeting',
      fingerprint: 'fp',
      resendable: true,
      current,
      submit: work.submit,
    });
    expect(again).toMatchObject({ id: 'j1', status: 'TRANSLATING', resumed: true });
    expect(checks).toBe(1);
    expect(work.runs).toBe(0);
  });

  it('a status read that changed nothing is one ledger write, not waited on the disk, and the ledger still spaces other processes', async () => {
    const clock = virtualClock(Date.now());
    let writes = 0;
    const counting =
      <A extends unknown[], R>(write: (...args: A) => R) =>
      (...args: A): R => {
        writes += 1;
        return write(...args);
      };
    const durability: (boolean | undefined)[] = [];
    let looks = 0;
    const counted: JobLedger = {
      ...ledger,
      findById: (service, id) => {
        looks += 1;
        return ledger.findById(service, id);
      },
      insert: counting(ledger.insert),
      compareAndSet: counting((service, fp, revision, patch, options) => {
        durability.push(options?.durable);
        return ledger.compareAndSet(service, fp, revision, patch, options);
      }),
      update: counting(ledger.update),
      updateById: counting(ledger.updateById),
    };
    await ledger.insert({ service: 'meeting', fingerprint: 'fp', id: 'j1', lastStatus: 'PROCESSING' });
    const engine = createJobEngine({ ledger: counted, now: clock.now, sleep: clock.sleep });
    let reads = 0;
    // Read as every client reads: through observe, with the platform's response.
    const read = () =>
      engine.observe({
        service: 'meeting',
        id: 'j1',
        read: async () => {
          reads += 1;
          return { headers: {}, data: { status: 'PROCESSING' } };
        },
        seen: (response) => ({ status: response.data.status, body: response.data }),
      });
    const outcome = await engine.poll({
      service: 'meeting',
      id: 'j1',
      intervalMs: 5_000,
      deadline: clock.now() + 19_000,
      isDone: () => false,
      status: (job: Job) => job.status,
      read: async () => (await read()).data,
    });
    expect(outcome).toMatchObject({ done: false, reads: 4 });
    expect(reads).toBe(4);
    expect(writes).toBe(reads);
    // And no other ledger operation: the entry is read for the first read only; each later reservation
    // is written at the revision this process's own last reservation left.
    expect(looks).toBe(1);
    // Each is the reservation of a read, which need not wait for the disk (a store that can commit it so does).
    expect(durability).toEqual([false, false, false, false]);
    const entry = await ledger.findById('meeting', 'j1');
    expect(Date.parse(entry?.nextReadAt ?? '') - Date.parse(entry?.lastReadAt ?? '')).toBeGreaterThanOrEqual(
      5_000,
    );
  });

  it("a read taken by another process since this one's last reservation is seen: this reservation is refused, the ledger read again, and the other's interval kept", async () => {
    const clock = virtualClock(Date.now());
    await ledger.insert({ service: 'meeting', fingerprint: 'fp', id: 'j1', lastStatus: 'PROCESSING' });
    const here = createJobEngine({ ledger, now: clock.now, sleep: clock.sleep });
    const there = createJobEngine({ ledger, now: clock.now, sleep: clock.sleep });
    const sent: string[] = [];
    const start = clock.now();
    const pollBy = (engine: JobEngine, who: string, waitMs: number) =>
      engine.poll({
        service: 'meeting',
        id: 'j1',
        intervalMs: 5_000,
        deadline: clock.now() + waitMs,
        isDone: () => false,
        status: (job: Job) => job.status,
        read: async () => {
          sent.push(`${who} at +${clock.now() - start}`);
          return { status: 'PROCESSING' };
        },
      });
    // This process reads (and remembers the entry as it took the read); the other reads one interval and a
    // bit later, when its own look at the ledger says it may.
    expect(await pollBy(here, 'here', 0)).toMatchObject({ reads: 1 });
    clock.advance(6_000);
    expect(await pollBy(there, 'there', 0)).toMatchObject({ reads: 1 });
    // By its own memory this process could read again at once; the ledger says the other's read holds it
    // off one interval (and the reservation's slack) from that read.
    clock.advance(1_000);
    expect(await pollBy(here, 'here', 7_000)).toMatchObject({ reads: 1 });
    const [, theirs = Number.NaN, ours = Number.NaN] = sent.map((line) => Number(line.split('+')[1]));
    expect(sent.map((line) => line.split(' ')[0])).toEqual(['here', 'there', 'here']);
    expect(ours - theirs).toBeGreaterThanOrEqual(5_000);
  });

  it('a read whose reservation outlasts the slack is reserved again, so another process never reads within an interval of it', async () => {
    const clock = virtualClock(Date.now());
    const slow: JobLedger = {
      ...ledger,
      // Every reservation takes 700 ms: more than the first slack (500 ms), less than the doubled one.
      compareAndSet: async (...args) => {
        const written = await ledger.compareAndSet(...args);
        clock.advance(700);
        return written;
      },
    };
    await ledger.insert({ service: 'meeting', fingerprint: 'fp', id: 'j1', lastStatus: 'PROCESSING' });
    const engine = createJobEngine({ ledger: slow, now: clock.now, sleep: clock.sleep });
    const sent: number[] = [];
    const outcome = await engine.poll({
      service: 'meeting',
      id: 'j1',
      intervalMs: 5_000,
      deadline: clock.now() + 3_000,
      read: async () => {
        sent.push(clock.now());
        return { status: 'PROCESSING' };
      },
      isDone: () => false,
      status: (job: Job) => job.status,
    });
    expect(outcome).toMatchObject({ done: false, reads: 1 });
    expect(sent).toHaveLength(1);
    // What other processes go by: no read before one interval after this one was sent.
    const entry = await ledger.findById('meeting', 'j1');
    expect(Date.parse(entry?.nextReadAt ?? '')).toBeGreaterThanOrEqual((sent[0] ?? 0) + 5_000);
  });

  it('a read that changed the job is written even when the first write fails (a busy lock)', async () => {
    const clock = virtualClock(Date.now());
    let failures = 1;
    const flaky: JobLedger = {
      ...ledger,
      updateById: async (...args) => {
        if (failures > 0) {
          failures -= 1;
          throw new Error('ELOCKED: lock file is already being held');
        }
        return ledger.updateById(...args);
      },
    };
    await ledger.insert({ service: 'meeting', fingerprint: 'fp', id: 'j1', lastStatus: 'PROCESSING' });
    const warnings: string[] = [];
    const engine = createJobEngine({
      ledger: flaky,
      now: clock.now,
      sleep: clock.sleep,
      log: { warn: (message) => warnings.push(message) },
    });
    const outcome = await engine.poll({
      service: 'meeting',
      id: 'j1',
      intervalMs: 5_000,
      deadline: clock.now() + 1_000,
      read: async () => ({ status: 'COMPLETED' }),
      isDone: (job: Job) => job.status === 'COMPLETED',
      status: (job: Job) => job.status,
    });
    expect(outcome.done).toBe(true);
    expect((await ledger.findById('meeting', 'j1'))?.lastStatus).toBe('COMPLETED');
    expect(warnings).toEqual([]);
  });

  it('a recorded job the platform cannot confirm right now (503) is resumed, not paid again', async () => {
    const engine = createJobEngine({ ledger });
    const work = slowSubmission();
    work.release();
    const first = await engine.start({
      service: 'meeting',
      fingerprint: 'fp',
      resendable: true,
      submit: work.submit,
    });
    const again = await engine.start({
      service: 'meeting',
      fingerprint: 'fp',
      resendable: true,
      current: async () => {
        throw unavailable();
      },
      submit: work.submit,
    });
    expect(again).toMatchObject({ id: first.id, resumed: true });
    expect(work.runs).toBe(1);
  });

  describe('asking for a new job keeps the recorded one until the new one exists', () => {
    /** The entry as a user of the ledger sees it, without the bookkeeping every write changes. */
    const recorded = async (fp = 'fp') => {
      const entry = await ledger.findByFingerprint('meeting', fp);
      const {
        revision: _revision,
        updatedAt: _updatedAt,
        claim: _claim,
        pending: _pending,
        ...rest
      } = entry ?? {};
      return rest;
    };

    /** A forced submission that uploads (receipt-2) and then fails with `failure`; what it was shown. */
    async function failedReplacement(engine: ReturnType<typeof createJobEngine>, failure: () => Error) {
      let saw: { entry: unknown; previous: unknown } | undefined;
      await expect(
        engine.start({
          service: 'meeting',
          fingerprint: 'fp',
          resendable: true,
          forceNew: true,
          request: { file: '/rec/weekly.wav' },
          submit: async ({ entry, previous, save }) => {
            saw = { entry, previous };
            await save({
              receipt: 'receipt-2',
              receiptIssuedAt: new Date().toISOString(),
              lastStatus: 'UPLOADED',
            });
            throw failure();
          },
        }),
      ).rejects.toThrow();
      return saw;
    }

    async function recordRunningJob(engine: ReturnType<typeof createJobEngine>) {
      const started = await engine.start({
        service: 'meeting',
        fingerprint: 'fp',
        resendable: true,
        request: { file: '/rec/weekly.wav', creditReservation: { credits: 24 } },
        submit: async ({ save }) => {
          await save({
            receipt: 'receipt-1',
            receiptIssuedAt: new Date().toISOString(),
            lastStatus: 'UPLOADED',
          });
          return { id: 'job-1', status: 'PENDING' };
        },
      });
      await engine.record('meeting', started.id, {
        lastStatus: 'PROCESSING',
        data: { jobId: 'job-1', credits: 24 },
      });
      return started;
    }

    it.each([
      ['refused before anything is sent (budget)', () => new LedgerError('refused', { location: 'x' })],
      [
        'an upload answered 503',
        () => createApiError({ status: 503, method: 'POST', url: '/uploads', body: undefined }),
      ],
      ['a reset after the create POST', () => new Error('socket hang up')],
    ])(
      '%s: the job stays exactly as recorded, and the next plain call resumes it',
      async (_name, failure) => {
        const engine = createJobEngine({ ledger });
        await recordRunningJob(engine);
        const before = await recorded();
        const saw = await failedReplacement(engine, failure);
        // The replacement saw a job-less entry of its own: no id, not the recorded job's receipt.
        expect(saw?.entry).toMatchObject({ id: null, receipt: null, lastStatus: 'SUBMITTING' });
        expect(saw?.previous).toMatchObject({ id: 'job-1' });
        expect(await recorded()).toEqual(before);
        expect(await engine.find('meeting', 'job-1')).toMatchObject({
          id: 'job-1',
          lastStatus: 'PROCESSING',
        });
        expect((await ledger.list()).map((entry) => entry.id)).toEqual(['job-1']);

        let paid = 0;
        const plain = await engine.start({
          service: 'meeting',
          fingerprint: 'fp',
          resendable: true,
          current: async () => 'PROCESSING',
          submit: async () => {
            paid += 1;
            return { id: 'job-2', status: 'PENDING' };
          },
        });
        expect(plain).toMatchObject({ id: 'job-1', resumed: true });
        expect(paid).toBe(0);
      },
    );

    it('an interrupted replacement leaves its receipt for the next one, which takes the entry over once its job exists', async () => {
      const engine = createJobEngine({ ledger });
      await recordRunningJob(engine);
      await failedReplacement(engine, () =>
        createApiError({ status: 503, method: 'POST', url: '/jobs', body: undefined }),
      );
      const sent: (string | null | undefined)[] = [];
      const replaced = await engine.start({
        service: 'meeting',
        fingerprint: 'fp',
        resendable: true,
        forceNew: true,
        submit: async ({ entry, previous }) => {
          // Sending the same receipt again yields the job the interrupted attempt may have created.
          sent.push(entry?.receipt);
          expect(previous).toMatchObject({ id: null, lastStatus: 'UNKNOWN', receipt: 'receipt-2' });
          return { id: 'job-2', status: 'PENDING' };
        },
      });
      expect(replaced).toMatchObject({ id: 'job-2', resumed: false });
      expect(sent).toEqual(['receipt-2']);
      const entry = await ledger.findByFingerprint('meeting', 'fp');
      expect(entry).toMatchObject({
        id: 'job-2',
        lastStatus: 'PENDING',
        receipt: 'receipt-2',
        pending: null,
      });
      expect(entry?.lastReadAt ?? null).toBeNull();
      expect(await engine.find('meeting', 'job-2')).toMatchObject({ id: 'job-2' });
    });
  });
});
