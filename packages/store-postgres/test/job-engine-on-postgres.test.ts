/**
 * core's job engine on the PostgreSQL ledger, two engines with a pool each standing in for two server
 * replicas: what a paying user notices — how often the paid work runs, which job id each call answers,
 * how often the platform is read, and that nothing is paid while the database is down.
 */
import { LedgerError } from '@polymodal/core';
import { createJobEngine, type StartJobOptions } from '@polymodal/core/jobs';
import type { JobLedger } from '@polymodal/core/ledger';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresJobLedger, type PostgresJobLedger } from '../src/index.js';
import { freePort, startPostgres, type TestPostgres } from './support/start-postgres.js';

let server: TestPostgres;
const opened: PostgresJobLedger[] = [];
const quiet = { warn: () => undefined };

beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.destroy();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((ledger) => ledger.close()));
});

/** Two ledgers (two pools) on one schema: the storage of two replicas. */
function replicas(count = 2): PostgresJobLedger[] {
  const schema = server.newSchema();
  return Array.from({ length: count }, () => {
    const ledger = createPostgresJobLedger({ connectionString: server.url, schema });
    opened.push(ledger);
    return ledger;
  });
}

/** Resolves once `condition` holds (checked every 10 ms; the test's own timeout bounds it). */
async function until(condition: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Paid work that takes until `release()`; counts how often it ran. */
function paidWork(prefix: string) {
  let release: () => void = () => undefined;
  let fail: (error: Error) => void = () => undefined;
  const gate = new Promise<void>((resolve, reject) => {
    release = resolve;
    fail = reject;
  });
  let runs = 0;
  return {
    get runs() {
      return runs;
    },
    release: () => release(),
    fail: (error: Error) => fail(error),
    submit: async () => {
      runs += 1;
      await gate;
      return { id: `${prefix}-job-${runs}`, status: 'PENDING' };
    },
  };
}

/** Counts `findByFingerprint` calls, so a test knows when an engine is waiting on another's claim. */
function counted(ledger: JobLedger): { ledger: JobLedger; looks: () => number } {
  let looks = 0;
  return {
    ledger: {
      ...ledger,
      findByFingerprint: (service, fingerprint) => {
        looks += 1;
        return ledger.findByFingerprint(service, fingerprint);
      },
    },
    looks: () => looks,
  };
}

const meeting = (submit: StartJobOptions['submit']): StartJobOptions => ({
  service: 'meeting',
  fingerprint: 'same-recording',
  resendable: true,
  submit,
});

describe('the job engine on PostgreSQL, two replicas', () => {
  it('identical starts on both replicas at once: the paid submission runs once, every call gets its id', async () => {
    const [first, second] = replicas();
    const watchedA = counted(first as JobLedger);
    const watchedB = counted(second as JobLedger);
    const engineA = createJobEngine({ ledger: watchedA.ledger, log: quiet });
    const engineB = createJobEngine({ ledger: watchedB.ledger, log: quiet });
    const workA = paidWork('a');
    const workB = paidWork('b');
    const calls = [
      ...Array.from({ length: 5 }, () => engineA.start(meeting(workA.submit))),
      ...Array.from({ length: 5 }, () => engineB.start(meeting(workB.submit))),
    ];
    // Released only once one replica is paying and the other has seen its claim and looked again.
    await until(
      () => (workA.runs === 1 && watchedB.looks() >= 2) || (workB.runs === 1 && watchedA.looks() >= 2),
    );
    workA.release();
    workB.release();
    const started = await Promise.all(calls);
    expect(workA.runs + workB.runs).toBe(1);
    const ids = new Set(started.map((item) => item.id));
    expect(ids.size).toBe(1);
    const [id] = ids;
    expect(await first?.findByFingerprint('meeting', 'same-recording')).toMatchObject({ id, claim: null });
  });

  it('takes over a claim whose replica died once its lease runs out, and pays once more only then', async () => {
    const [doomed, survivor] = replicas();
    const engineA = createJobEngine({ ledger: doomed, log: quiet, leaseMs: 1_500 });
    const engineB = createJobEngine({ ledger: survivor, log: quiet });
    const workA = paidWork('a');
    const workB = paidWork('b');
    const dying = engineA.start(meeting(workA.submit)).catch((error: unknown) => error);
    await until(async () => (await survivor?.findByFingerprint('meeting', 'same-recording'))?.claim != null);
    // The replica's database connections go away with it: its claim is no longer renewed.
    await doomed?.close();
    workB.release();
    const taken = await engineB.start(meeting(workB.submit));
    expect(taken).toMatchObject({ id: 'b-job-1', resumed: false });
    expect(workA.runs).toBe(1);
    expect(workB.runs).toBe(1);
    expect(await survivor?.findByFingerprint('meeting', 'same-recording')).toMatchObject({
      id: 'b-job-1',
      claim: null,
    });
    workA.fail(new Error('replica gone'));
    await dying;
  });

  it('keeps the per-job read interval across replicas', async () => {
    const [first, second] = replicas();
    await first?.insert({ service: 'meeting', fingerprint: 'fp', id: 'job-1', lastStatus: 'PENDING' });
    const intervalMs = 1_000;
    const reads: Array<{ replica: string; at: number }> = [];
    const poll = (ledger: JobLedger | undefined, replica: string) =>
      createJobEngine({ ledger, log: quiet }).poll({
        service: 'meeting',
        id: 'job-1',
        intervalMs,
        // No deadline of its own (the test's timeout bounds it): a replica whose deadline came before the
        // end of another's read reservation would answer "still running" at once.
        deadline: Number.POSITIVE_INFINITY,
        read: async () => {
          reads.push({ replica, at: Date.now() });
          return { status: reads.length >= 4 ? 'COMPLETED' : 'PROCESSING' };
        },
        isDone: (job) => job.status === 'COMPLETED',
        status: (job) => job.status,
      });
    const outcomes = await Promise.all([poll(first, 'a'), poll(second, 'b')]);
    expect(outcomes.map((outcome) => outcome.done)).toEqual([true, true]);
    // Two pollers without a shared ledger would each read every interval; here they take turns.
    expect(reads.length).toBeLessThanOrEqual(5);
    const times = reads.map((read) => read.at).sort((a, b) => a - b);
    for (let index = 1; index < times.length; index++) {
      // Timers may fire a millisecond early against Date.now.
      expect((times[index] ?? 0) - (times[index - 1] ?? 0)).toBeGreaterThanOrEqual(intervalMs - 2);
    }
    expect((await second?.findById('meeting', 'job-1'))?.lastStatus).toBe('COMPLETED');
  });

  it("keeps a job's largest Retry-After as its floor across a restart of the replica", async () => {
    const [first, second] = replicas();
    await first?.insert({ service: 'speech-synthesis', fingerprint: 'fp', id: 't1', lastStatus: 'PENDING' });
    // A held clock: the engine's pauses pass at once, the database keeps the times the engine gives it.
    let time = Date.now();
    const clock = {
      now: () => time,
      sleep: async (ms: number) => {
        time += Math.max(0, ms);
      },
    };
    const answers: Array<[string, string?]> = [['PENDING', '3'], ['STARTED'], ['STARTED'], ['SUCCESS']];
    const reads: Array<{ at: number; retryAfterMs: number }> = [];
    const pollOn = (ledger: JobLedger | undefined, waitMs: number) => {
      const engine = createJobEngine({ ledger, log: quiet, ...clock, random: () => 0 });
      return engine.poll({
        service: 'speech-synthesis',
        id: 't1',
        intervalMs: 1_000,
        cadence: { growth: 1.25, maxIntervalMs: 15_000, jitter: 0.1 },
        deadline: time + waitMs,
        isDone: (job) => job.status === 'SUCCESS',
        status: (job) => job.status,
        read: async () =>
          (
            await engine.observe({
              service: 'speech-synthesis',
              id: 't1',
              read: async () => {
                const [status, retryAfter] = answers[Math.min(reads.length, answers.length - 1)] ?? [
                  'SUCCESS',
                ];
                reads.push({ at: time, retryAfterMs: Number(retryAfter ?? 0) * 1_000 });
                const headers: Record<string, string> = retryAfter ? { 'retry-after': retryAfter } : {};
                return { headers, data: { status } };
              },
              seen: (response) => ({ status: response.data.status, body: response.data }),
            })
          ).data,
      });
    };
    // The first replica reads PENDING (Retry-After: 3) and STARTED, and stops; the second, with nothing in
    // memory, continues the job on what the database holds.
    expect(await pollOn(first, 4_000)).toMatchObject({ done: false, reads: 2 });
    expect((await second?.findById('speech-synthesis', 't1'))?.retryAfterFloorMs).toBe(3_000);
    expect(await pollOn(second, 60_000)).toMatchObject({ done: true, reads: 2 });
    expect(reads).toHaveLength(4);
    for (let index = 1; index < reads.length; index++) {
      expect(
        (reads[index]?.at ?? 0) - (reads[index - 1]?.at ?? 0),
        `read ${index + 1}`,
      ).toBeGreaterThanOrEqual(3_000);
    }
  });

  it('a status read that changed nothing is one modifying statement', async () => {
    const pool = new pg.Pool({ connectionString: server.url, max: 2 });
    const modifying: string[] = [];
    const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
    (pool as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = (...args) => {
      if (typeof args[0] === 'string' && /^\s*(UPDATE|INSERT|DELETE)\b/i.test(args[0]))
        modifying.push(args[0]);
      return query(...args);
    };
    const ledger = createPostgresJobLedger({ pool, schema: server.newSchema() });
    opened.push(ledger);
    await ledger.insert({ service: 'meeting', fingerprint: 'fp', id: 'job-1', lastStatus: 'PROCESSING' });
    modifying.length = 0;
    const engine = createJobEngine({ ledger, log: quiet });
    let reads = 0;
    const outcome = await engine.poll({
      service: 'meeting',
      id: 'job-1',
      intervalMs: 100,
      deadline: Date.now() + 1_500,
      // As every client reads: through observe, with the platform's response.
      read: async () =>
        (
          await engine.observe({
            service: 'meeting',
            id: 'job-1',
            read: async () => {
              reads += 1;
              return { headers: {}, data: { status: 'PROCESSING' } };
            },
            seen: (response) => ({ status: response.data.status, body: response.data }),
          })
        ).data,
      isDone: () => false,
      status: (job) => job.status,
    });
    await pool.end();
    expect(outcome.done).toBe(false);
    expect(reads).toBeGreaterThanOrEqual(2);
    // Each read was reserved by one UPDATE of its time and the next one's; none of them was written again
    // after its answer (a reservation that a loaded database answered too late to send its read is made
    // anew, hence at least as many reservations as reads).
    expect(modifying.every((text) => /next_read_at =/.test(text) && !/last_status =/.test(text))).toBe(true);
    expect(modifying.length).toBeGreaterThanOrEqual(reads);
  });

  it('with the database unreachable, start() refuses with a LedgerError before anything is paid', async () => {
    const port = await freePort();
    const password = 'sEcret-pw-77';
    const down = createPostgresJobLedger({
      connectionString: `postgres://polymodal:${password}@127.0.0.1:${port}/jobs`,
      connectionTimeoutMs: 2_000,
    });
    opened.push(down);
    const engine = createJobEngine({ ledger: down, log: quiet });
    const work = paidWork('a');
    work.release();
    const error = await engine.start(meeting(work.submit)).catch((caught: unknown) => caught);
    expect(LedgerError.isInstance(error)).toBe(true);
    expect(work.runs).toBe(0);
    const message = (error as Error).message;
    expect(message).toContain(`postgres://polymodal:***@127.0.0.1:${port}/jobs`);
    expect(message).toContain('Could not reach PostgreSQL');
    expect(message).not.toContain(password);
  });

  it('refuses while PostgreSQL is stopped, and works again on the same pool once it is back', async () => {
    const [ledger] = replicas(1);
    const engine = createJobEngine({ ledger, log: quiet });
    const before = paidWork('before');
    before.release();
    await engine.start({ ...meeting(before.submit), fingerprint: 'before-outage' });

    await server.stop();
    const during = paidWork('during');
    during.release();
    try {
      const error = await engine.start(meeting(during.submit)).catch((caught: unknown) => caught);
      expect(LedgerError.isInstance(error)).toBe(true);
      expect(during.runs).toBe(0);
      await expect(ledger?.ready()).rejects.toSatisfy(LedgerError.isInstance);
    } finally {
      await server.start();
    }

    const after = await engine.start(meeting(during.submit));
    expect(after).toMatchObject({ id: 'during-job-1', resumed: false });
    expect(during.runs).toBe(1);
    // What was recorded before the outage is still there.
    expect((await ledger?.findByFingerprint('meeting', 'before-outage'))?.id).toBe('before-job-1');
  });
});
