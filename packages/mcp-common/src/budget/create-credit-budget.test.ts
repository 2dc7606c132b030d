import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createJobLedger, type JobLedger, type LedgerEntry } from '@polymodal/core/ledger';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BudgetExceededError } from './budget-exceeded-error.js';
import { type BudgetLimit, createCreditBudget, creditBudgetOf } from './create-credit-budget.js';
import { entryCredits } from './entry-credits.js';
import { estimateMeetingCredits } from './estimate-meeting-credits.js';

const NOON = Date.parse('2026-11-23T12:00:00.000Z');
const SIX_MINUTES = estimateMeetingCredits(5.5 * 60);

describe('credit budget', () => {
  let dir: string;
  let ledger: JobLedger;
  let now: number;
  let limit: BudgetLimit | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'credit-budget-'));
    ledger = createJobLedger({ dir });
    now = NOON;
    limit = { creditsPerDay: 30, setting: 'budget.creditsPerDay' };
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const budgetFor = (tenant?: string) =>
    createCreditBudget({ ledger, tenant, limit: () => limit, now: () => now });

  /** Claims a submission as the job engine does, and returns what core hands to `admit`. */
  async function claim(fingerprint: string, previous?: LedgerEntry) {
    const fresh = { lastStatus: 'SUBMITTING', request: { file: `/rec/${fingerprint}.wav` } };
    const entry = previous
      ? await ledger.compareAndSet('meeting', fingerprint, previous.revision, { ...fresh, id: null })
      : (await ledger.insert({ service: 'meeting', fingerprint, id: null, ...fresh })).entry;
    return {
      entry,
      previous,
      save: async (patch: Parameters<JobLedger['update']>[2]) => {
        await ledger.update('meeting', fingerprint, patch);
      },
    };
  }

  const entryOf = async (fingerprint: string) =>
    (await ledger.findByFingerprint('meeting', fingerprint)) as LedgerEntry;

  it('admits within the budget and records the estimate in the entry before anything is sent', async () => {
    const budget = budgetFor('team-a');
    await budget.admit({ ...(await claim('a')), estimate: SIX_MINUTES });
    expect((await entryOf('a')).request).toMatchObject({
      file: '/rec/a.wav',
      creditReservation: { day: '2026-11-23', credits: 24, basis: '6 started minutes × 4' },
    });
    expect(await budget.today()).toEqual({
      day: '2026-11-23',
      spent: 0,
      reserved: 24,
      creditsPerDay: 30,
      remaining: 6,
    });
  });

  it('refuses the call that would exceed it, naming the budget, the tenant, the spending and the cost', async () => {
    const budget = budgetFor('team-a');
    await budget.admit({ ...(await claim('a')), estimate: SIX_MINUTES });
    const refused = budget.admit({ ...(await claim('b')), estimate: SIX_MINUTES, what: 'this recording' });
    await expect(refused).rejects.toSatisfy(BudgetExceededError.isInstance);
    await expect(refused).rejects.toThrow(
      'Daily credit budget of 30 for tenant team-a: 24 spent or reserved today (2026-11-23 UTC), this recording ' +
        'would cost about 24 (6 started minutes × 4). Nothing was uploaded or submitted. Try again after 00:00 ' +
        'UTC or raise budget.creditsPerDay.',
    );
    // Nothing reserved for the refused call.
    expect((await entryOf('b')).request?.creditReservation).toBeUndefined();
    expect((await budget.today()).reserved).toBe(24);
  });

  it('serializes check-and-reserve: of 5 concurrent calls of 10 on a budget of 25, exactly 2 pass', async () => {
    limit = { creditsPerDay: 25, setting: 'POLYMODAL_CREDITS_PER_DAY' };
    const budget = budgetFor();
    const claims = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((fp) => claim(fp)));
    const outcomes = await Promise.allSettled(
      claims.map((claimed) => budget.admit({ ...claimed, estimate: { credits: 10, basis: 'ten' } })),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(2);
    const refusal = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
    // Without a tenant the message names the variable to raise.
    expect(String(refusal.reason)).toMatch(/^BudgetExceededError: Daily credit budget of 25: 20 spent/);
    expect(String(refusal.reason)).toMatch(/raise POLYMODAL_CREDITS_PER_DAY\.$/);
    expect((await budget.today()).reserved).toBe(20);
  });

  it('counts what the platform reported: charged credits, nothing for failed jobs, a higher figure', async () => {
    const budget = budgetFor();
    for (const fp of ['charged', 'failed', 'running']) {
      await budget.admit({ ...(await claim(fp)), estimate: { credits: 4, basis: '1 started minute × 4' } });
    }
    // As core records a job's read: the platform's credits, tagged with the job id.
    await ledger.update('meeting', 'charged', {
      id: 'job-1',
      lastStatus: 'COMPLETED',
      data: { jobId: 'job-1', credits: 10, creditsCharged: true },
    });
    await ledger.update('meeting', 'failed', {
      id: 'job-2',
      lastStatus: 'FAILED',
      data: { jobId: 'job-2', credits: 10, creditsCharged: false },
    });
    // The platform's minimum makes it dearer than the estimate: the higher figure counts.
    await ledger.update('meeting', 'running', {
      id: 'job-3',
      lastStatus: 'PROCESSING',
      data: { jobId: 'job-3', credits: 10, creditsCharged: false },
    });
    expect(await budget.today()).toMatchObject({ spent: 10, reserved: 10, remaining: 10 });
    // Figures of another job (an entry started anew) do not count as this entry's charge.
    await ledger.update('meeting', 'running', { id: 'job-4' });
    expect(await budget.today()).toMatchObject({ spent: 10, reserved: 4 });
  });

  it('starts again at 00:00 UTC; a job counts on the day it was submitted', async () => {
    const budget = budgetFor('team-a');
    await budget.admit({ ...(await claim('a')), estimate: SIX_MINUTES });
    await expect(budget.admit({ ...(await claim('b')), estimate: SIX_MINUTES })).rejects.toThrow(
      /Daily credit budget of 30/,
    );
    now = Date.parse('2026-11-24T00:00:00.000Z');
    expect(await budget.today()).toMatchObject({ day: '2026-11-24', spent: 0, reserved: 0, remaining: 30 });
    const refusedBefore = await entryOf('b');
    expect(refusedBefore.lastStatus).toBe('SUBMITTING');
    await ledger.update('meeting', 'b', { lastStatus: 'NOT_CREATED' });
    await budget.admit({ ...(await claim('b', await entryOf('b'))), estimate: SIX_MINUTES });
    expect((await entryOf('b')).request?.creditReservation).toMatchObject({ day: '2026-11-24' });
  });

  it('never refuses going on with an interrupted, admitted submission; a NOT_CREATED one is checked anew', async () => {
    const budget = budgetFor();
    await budget.admit({ ...(await claim('a')), estimate: SIX_MINUTES });
    // The process died after the upload: the entry is of unknown outcome, with its reservation.
    await ledger.update('meeting', 'a', { lastStatus: 'UNKNOWN', receipt: 'r1' });
    await budget.admit({ ...(await claim('b')), estimate: { credits: 6, basis: 'six' } });
    await budget.admit({ ...(await claim('a', await entryOf('a'))), estimate: SIX_MINUTES });
    expect((await entryOf('a')).request?.creditReservation).toMatchObject({ credits: 24 });
    expect((await budget.today()).reserved).toBe(30);

    // Refused earlier (NOT_CREATED, nothing sent, no reservation): checked against today's spending.
    await budget.admit({ ...(await claim('c')), estimate: { credits: 0, basis: 'none' } });
    await ledger.update('meeting', 'c', { lastStatus: 'NOT_CREATED' });
    await expect(
      budget.admit({ ...(await claim('c', await entryOf('c'))), estimate: { credits: 1, basis: 'one' } }),
    ).rejects.toSatisfy(BudgetExceededError.isInstance);
  });

  it('keeps counting a job charged today that a forced resubmission replaces in the same entry', async () => {
    const budget = budgetFor();
    await budget.admit({ ...(await claim('a')), estimate: { credits: 12, basis: '3 started minutes × 4' } });
    await ledger.update('meeting', 'a', {
      id: 'job-1',
      lastStatus: 'COMPLETED',
      data: { jobId: 'job-1', credits: 12, creditsCharged: true },
    });
    const replaced = await entryOf('a');
    await budget.admit({ ...(await claim('a', replaced)), estimate: { credits: 12, basis: 'again' } });
    expect(entryCredits(await entryOf('a'))).toEqual({ day: '2026-11-23', charged: 12, reserved: 12 });
    await expect(
      budget.admit({ ...(await claim('b')), estimate: { credits: 7, basis: 'seven' } }),
    ).rejects.toThrow(/24 spent or reserved today/);
  });

  it('counts an entry its store keeps frozen once, and a changed version of it (a new object) anew', async () => {
    const budget = budgetFor();
    await budget.admit({ ...(await claim('a')), estimate: SIX_MINUTES });
    const freeze = <T>(value: T): T => {
      if (value !== null && typeof value === 'object') {
        for (const item of Object.values(value)) freeze(item);
        Object.freeze(value);
      }
      return value;
    };
    const kept = freeze(structuredClone(await entryOf('a')));
    expect(entryCredits(kept)).toEqual({ day: '2026-11-23', charged: 0, reserved: 24 });
    expect(entryCredits(kept)).toEqual(entryCredits(await entryOf('a')));
    // Counted once: the same (frozen) figures each time.
    expect(entryCredits(kept)).toBe(entryCredits(kept));
    const charged = freeze({
      ...structuredClone(kept),
      id: 'job-1',
      lastStatus: 'COMPLETED',
      data: { jobId: 'job-1', credits: 30, creditsCharged: true },
    });
    expect(entryCredits(charged)).toEqual({ day: '2026-11-23', charged: 30, reserved: 0 });
    expect(entryCredits(kept)).toEqual({ day: '2026-11-23', charged: 0, reserved: 24 });
  });

  it('without a budget admits everything and still records the estimate; list_jobs finds it by ledger', async () => {
    limit = undefined;
    const budget = budgetFor();
    for (const fp of ['a', 'b', 'c']) await budget.admit({ ...(await claim(fp)), estimate: SIX_MINUTES });
    expect(await budget.today()).toEqual({ day: '2026-11-23', spent: 0, reserved: 72 });
    expect(creditBudgetOf(ledger)).toBe(budget);
  });

  it('moves a failed job restarted on a later day to today, and checks a job it does not know without recording', async () => {
    const budget = budgetFor();
    now = Date.parse('2026-11-22T12:00:00.000Z');
    await budget.admit({ ...(await claim('a')), estimate: SIX_MINUTES });
    await ledger.update('meeting', 'a', { id: 'job-1', lastStatus: 'FAILED' });
    now = NOON;
    await budget.admit({ ...(await claim('b')), estimate: { credits: 4, basis: 'four' } });
    const restart = await budget.admitRestart({ service: 'meeting', jobId: 'job-1', estimate: SIX_MINUTES });
    expect(await entryOf('a')).toMatchObject({ lastStatus: 'RESTART_REQUESTED' });
    expect(entryCredits(await entryOf('a'))).toEqual({ day: '2026-11-23', charged: 0, reserved: 24 });
    expect((await budget.today()).reserved).toBe(28);
    // Undone when the platform does not accept the restart.
    await restart.undo();
    expect(entryCredits(await entryOf('a'))).toEqual({ day: '2026-11-22', charged: 0, reserved: 0 });
    // A job started elsewhere: checked against what is left (26), nothing recorded.
    await expect(
      budget.admitRestart({ service: 'meeting', jobId: 'elsewhere', estimate: { credits: 27, basis: 'x' } }),
    ).rejects.toThrow(/4 spent or reserved today .* would cost about 27/);
    await budget.admitRestart({
      service: 'meeting',
      jobId: 'elsewhere',
      estimate: { credits: 26, basis: 'y' },
    });
    expect((await budget.today()).reserved).toBe(4);
  });
});
