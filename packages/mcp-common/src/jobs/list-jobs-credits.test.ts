import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createJobLedger, type JobLedger } from '@polymodal/core/ledger';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectTools, ledgerDeps } from '../../test/support/test-tools.js';
import { type BudgetLimit, createCreditBudget } from '../budget/create-credit-budget.js';
import { listJobsTool } from './list-jobs-tool.js';

const TODAY = '2026-11-23';
const NOON = Date.parse(`${TODAY}T12:00:00.000Z`);

describe('list_jobs: credits of today', () => {
  let dir: string;
  let ledger: JobLedger;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'list-jobs-credits-'));
    ledger = createJobLedger({ dir });
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** list_jobs with the budget's clock at noon UTC of TODAY, so the day counted is fixed. */
  async function listJobs(options: { limit?: BudgetLimit; found?: boolean } = {}) {
    const budget = createCreditBudget({ ledger, limit: () => options.limit, now: () => NOON });
    const client = await connectTools(
      [
        listJobsTool({
          services: ['meeting', 'speech'],
          // Found from the ledger (as every server registers it), or given.
          ...(options.found ? {} : { budget }),
        }),
      ],
      ledgerDeps(ledger),
    );
    const result = await client.callTool({ name: 'list_jobs', arguments: {} });
    await client.close();
    const text = (result.content as { type: string; text: string }[])[0]?.text ?? '';
    return { structured: result.structuredContent as Record<string, unknown>, text };
  }

  async function seed() {
    const today = TODAY;
    await ledger.insert({
      service: 'meeting',
      fingerprint: 'done',
      id: 'job-done',
      lastStatus: 'COMPLETED',
      request: { file: '/rec/a.wav', creditReservation: { day: today, credits: 8, basis: '2 × 4' } },
      data: { jobId: 'job-done', credits: 10, creditsCharged: true },
    });
    await ledger.insert({
      service: 'meeting',
      fingerprint: 'failed',
      id: 'job-failed',
      lastStatus: 'FAILED',
      request: { file: '/rec/b.wav', creditReservation: { day: today, credits: 24, basis: '6 × 4' } },
    });
    await ledger.insert({
      service: 'meeting',
      fingerprint: 'yesterday',
      id: 'job-old',
      lastStatus: 'COMPLETED',
      request: { creditReservation: { day: '2020-01-01', credits: 4, basis: '1 × 4' } },
      data: { jobId: 'job-old', credits: 4, creditsCharged: true },
    });
    // No published price: listed, counted 0.
    await ledger.insert({ service: 'speech', fingerprint: 's', id: 'tts-1', lastStatus: 'PENDING' });
    return today;
  }

  it("shows what was charged today (not other days, not failed jobs), each job's credits, and no budget", async () => {
    const today = await seed();
    const { structured, text } = await listJobs();
    expect(structured.credits).toEqual({ day: today, spent: 10, reserved: 0 });
    const jobs = structured.jobs as { jobId: string; credits?: number }[];
    expect(jobs.find((job) => job.jobId === 'job-done')?.credits).toBe(10);
    expect(jobs.find((job) => job.jobId === 'job-failed')?.credits).toBeUndefined();
    expect(jobs.find((job) => job.jobId === 'tts-1')).toBeDefined();
    expect(text).toContain(`Credits today (${today} UTC): 10 spent; no daily budget.`);
  });

  it("shows the budget of the ledger's context and what is left of it", async () => {
    const today = await seed();
    const { structured, text } = await listJobs({
      found: true,
      limit: { creditsPerDay: 25, setting: 'POLYMODAL_CREDITS_PER_DAY' },
    });
    expect(structured.credits).toEqual({
      day: today,
      spent: 10,
      reserved: 0,
      creditsPerDay: 25,
      remaining: 15,
    });
    expect(text).toContain('daily budget 25, 15 left.');
  });
});
