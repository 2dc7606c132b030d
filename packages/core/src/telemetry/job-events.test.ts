/**
 * The job engine's telemetry: each start reported once per caller as started, resumed, joined or
 * duplicate prevented, and every status read sent to the platform as one read.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiError } from '../errors/api-error.js';
import { UncertainSubmissionError } from '../errors/polymodal-error.js';
import { createJobEngine } from '../jobs/create-job-engine.js';
import { createJobLedger, type JobLedger } from '../ledger/create-job-ledger.js';
import type { JobStartEvent, PolymodalEvents } from './polymodal-events.js';

let dir: string;
let ledger: JobLedger;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'job-events-'));
  ledger = createJobLedger({ dir });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function recorder() {
  const starts: string[] = [];
  const reads: string[] = [];
  const events: PolymodalEvents = {
    jobStart: (event: JobStartEvent) => starts.push(`${event.service}:${event.kind}`),
    jobRead: (event) => reads.push(event.service),
  };
  return { starts, reads, events };
}

describe('job engine events', () => {
  it('reports a paid start, then a resume of the recorded job, and a caller joining one in flight', async () => {
    const { starts, events } = recorder();
    const engine = createJobEngine({ ledger, events });
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let submissions = 0;
    const options = {
      service: 'meeting',
      fingerprint: 'fp-1',
      resendable: true,
      submit: async () => {
        submissions += 1;
        await gate;
        return { id: 'job-1', status: 'QUEUED' };
      },
    };
    const first = engine.start(options);
    const second = engine.start(options);
    release();
    expect(await first).toMatchObject({ id: 'job-1', joined: false });
    expect(await second).toMatchObject({ id: 'job-1', joined: true });
    expect(await engine.start(options)).toMatchObject({ id: 'job-1', resumed: true });
    expect(submissions).toBe(1);
    expect(starts.sort()).toEqual(['meeting:joined', 'meeting:resumed', 'meeting:started']);
  });

  it('reports a refused uncertain resubmission as a duplicate prevented', async () => {
    const { starts, events } = recorder();
    const engine = createJobEngine({ ledger, events });
    await ledger.insert({
      service: 'video',
      fingerprint: 'fp-2',
      id: null,
      lastStatus: 'SUBMITTING',
      claim: { owner: 'elsewhere/1/x', expiresAt: new Date(Date.now() - 1_000).toISOString() },
    });
    await expect(
      engine.start({ service: 'video', fingerprint: 'fp-2', submit: async () => ({ id: 'v', status: 'x' }) }),
    ).rejects.toSatisfy(UncertainSubmissionError.isInstance);
    expect(starts).toEqual(['video:duplicate_prevented']);
  });

  it('counts each status read the platform answered, a refusal too, and an observer that throws changes nothing', async () => {
    const { reads, events } = recorder();
    const engine = createJobEngine({
      ledger,
      events: {
        ...events,
        jobRead: (event) => {
          events.jobRead?.(event);
          throw new Error('observer bug');
        },
      },
    });
    const seen = (response: { data: { status: string } }) => ({ status: response.data.status });
    expect(
      await engine.observe({
        service: 'meeting',
        id: 'j1',
        read: async () => ({ headers: {}, data: { status: 'RUNNING' } }),
        seen: seen,
      }),
    ).toEqual({ headers: {}, data: { status: 'RUNNING' } });
    await expect(
      engine.observe({
        service: 'meeting',
        id: 'j1',
        read: async () => {
          throw createApiError({ status: 429, method: 'GET', url: '/jobs/j1', body: undefined });
        },
        seen: seen,
      }),
    ).rejects.toThrow();
    await expect(
      engine.observe({
        service: 'meeting',
        id: 'j1',
        read: async () => {
          throw new Error('never sent');
        },
        seen: seen,
      }),
    ).rejects.toThrow('never sent');
    expect(reads).toEqual(['meeting', 'meeting']);
  });
});
