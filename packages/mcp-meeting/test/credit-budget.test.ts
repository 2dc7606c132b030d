/**
 * The daily credit budget at the tool level, against the sandbox with its clock held (jobs stay running
 * until released): a call within the budget goes through, the next one that would exceed it is refused
 * with the budget, the spending and the cost named, before anything reaches the platform (counted at the
 * sandbox); an identical call resumes its job and is never refused; list_jobs shows the day's credits.
 * Open mode with POLYMODAL_CREDITS_PER_DAY over InMemoryTransport, and two tenants of a tenants file over
 * real HTTP. The budget's clock is fixed at noon UTC, so no test depends on the wall clock's day.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { PlatformContext } from '@polymodal/mcp-common';
import { createPlatformContext } from '@polymodal/mcp-common/host';
import {
  createTenantAccess,
  type HttpServerHandle,
  runHttpServer,
  type TenantAccess,
} from '@polymodal/mcp-common/http';
import { connectInMemory, tenantClients, tokenSha256 } from '@polymodal/mcp-common/testing';
import { type Sandbox, startSandbox, writeMeetingRecording } from '@polymodal/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from '../src/server.js';

const UPLOADS = { method: 'POST', path: '/api/conference-summary/v1/uploads$' };
const NOON = Date.parse('2026-11-23T12:00:00.000Z');

/** A 5.5-minute recording (6 started minutes: 24 credits), kept small with a low sample rate. */
async function writeSixMinuteRecording(dir: string, name: string): Promise<string> {
  const file = path.join(dir, name);
  await writeMeetingRecording(file, {
    script: [{ speaker: 'Alice', text: `The ${name} review of the launch plan.`, seconds: 329 }],
    sampleRate: 4_000,
  });
  return file;
}

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function setUp() {
  const sandbox = await startSandbox({ speed: 100, clock: 'held' });
  const root = await mkdtemp(path.join(os.tmpdir(), 'mcp-meeting-budget-'));
  cleanups.push(async () => {
    await sandbox.close();
    await rm(root, { recursive: true, force: true });
  });
  const mediaDir = path.join(root, 'media');
  await mkdir(mediaDir, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    POLYMODAL_BASE_URL: sandbox.url,
    POLYMODAL_STATE_DIR: path.join(root, 'state'),
    POLYMODAL_ALLOWED_DIRS: mediaDir,
    POLYMODAL_OUTPUT_DIR: path.join(root, 'out'),
    POLYMODAL_LOG_LEVEL: 'error',
    POLYMODAL_POLL_INTERVAL_MS: '20',
  };
  return { sandbox, root, mediaDir, env };
}

/** A meeting server of the first user with a daily budget, its clock at `clock` (default noon UTC). */
async function connectWithBudget(
  sandbox: Sandbox,
  env: NodeJS.ProcessEnv,
  creditsPerDay: number,
  clock: () => number = () => NOON,
) {
  const context = createPlatformContext({
    env: { ...env, POLYMODAL_API_KEY: sandbox.apiKey, POLYMODAL_CREDITS_PER_DAY: String(creditsPerDay) },
    clock,
  });
  const connection = await connectInMemory(createServer({ platform: context }), {
    secrets: [sandbox.apiKey],
  });
  cleanups.push(async () => {
    await connection.close();
    await context.close();
  });
  return connection.call;
}

function uploadsSeen(sandbox: Sandbox): number {
  return sandbox.control.requests(UPLOADS).length;
}

describe('daily credit budget, one user (POLYMODAL_CREDITS_PER_DAY)', () => {
  it('admits within the budget, refuses before uploading what would exceed it, resumes, counts charges', async () => {
    const { sandbox, mediaDir, env } = await setUp();
    let now = NOON;
    const call = await connectWithBudget(sandbox, env, 30, () => now);
    const first = await writeSixMinuteRecording(mediaDir, 'first.wav');
    const second = await writeSixMinuteRecording(mediaDir, 'second.wav');

    const admitted = await call('summarize_meeting', { path: first, waitSeconds: 0 });
    expect(admitted.isError, admitted.text).toBe(false);
    const jobId = admitted.structured.jobId as string;
    expect(admitted.structured).toMatchObject({ done: false, resumed: false });

    const listed = await call('list_jobs');
    expect(listed.structured.credits).toEqual({
      day: '2026-11-23',
      spent: 0,
      reserved: 24,
      creditsPerDay: 30,
      remaining: 6,
    });
    expect(listed.structured.jobs).toEqual([expect.objectContaining({ jobId, credits: 24 })]);
    expect(listed.text).toContain(
      'Credits today (2026-11-23 UTC): 0 spent, 24 reserved by jobs not charged yet; daily budget 30, 6 left.',
    );

    const before = sandbox.control.requests().length;
    const refused = await call('summarize_meeting', { path: second, waitSeconds: 0 });
    expect(refused.isError).toBe(true);
    // Refused before any request: not even the upload-limit lookup reached the platform.
    expect(sandbox.control.requests().length).toBe(before);
    expect(refused.text).toBe(
      'Daily credit budget of 30: 24 spent or reserved today (2026-11-23 UTC), this recording would cost ' +
        'about 24 (6 started minutes × 4). Nothing was uploaded or submitted. Try again after 00:00 UTC or ' +
        'raise POLYMODAL_CREDITS_PER_DAY.',
    );
    // Nothing of the refused call reached the platform.
    expect(uploadsSeen(sandbox)).toBe(1);
    expect(sandbox.control.counters().jobsCreated[sandbox.users[0]?.id as string]).toBe(1);

    // The identical call resumes the recorded job: nothing new to pay, so never refused.
    const resumed = await call('summarize_meeting', { path: first, waitSeconds: 0 });
    expect(resumed.isError, resumed.text).toBe(false);
    expect(resumed.structured).toMatchObject({ jobId, resumed: true });
    expect(uploadsSeen(sandbox)).toBe(1);

    // The job completes and the platform charges it: what it reported is what counts.
    sandbox.control.releaseClock();
    const completed = await call('get_meeting', { jobId, waitSeconds: 30 });
    expect(completed.structured).toMatchObject({ status: 'COMPLETED' });
    const afterCharge = await call('list_jobs');
    expect(afterCharge.structured.credits).toMatchObject({ spent: 24, reserved: 0, remaining: 6 });
    expect((await call('summarize_meeting', { path: second, waitSeconds: 0 })).isError).toBe(true);

    // A new UTC day: the budget starts again.
    now = Date.parse('2026-11-24T00:00:00.000Z');
    const nextDay = await call('summarize_meeting', { path: second, waitSeconds: 0 });
    expect(nextDay.isError, nextDay.text).toBe(false);
    expect(uploadsSeen(sandbox)).toBe(2);
    // Sized by the work: two recordings written and uploaded, a job followed to its end and a dozen calls;
    // a busy machine took 13 s of the 20 s default.
  }, 60_000);
});

/** list_jobs' jobs without the time their entries were last written. */
function jobsOf(listed: Record<string, unknown>): unknown[] {
  return (listed.jobs as Record<string, unknown>[]).map(({ updatedAt: _updatedAt, ...job }) => job);
}

describe('force on a recorded job that fails before its new job exists', () => {
  it('a force refused by the budget, or whose upload gets 503s, leaves the recorded job listed, counted and resumed', async () => {
    const { sandbox, mediaDir, env } = await setUp();
    const call = await connectWithBudget(sandbox, env, 50);
    const file = await writeSixMinuteRecording(mediaDir, 'weekly.wav');
    const first = await call('summarize_meeting', { path: file, waitSeconds: 0 });
    expect(first.isError, first.text).toBe(false);
    const jobId = first.structured.jobId as string;
    const listedBefore = (await call('list_jobs')).structured;
    expect(listedBefore.credits).toMatchObject({ reserved: 24, remaining: 26 });

    // 24 for the running job and 24 for a new one would exceed 40: refused before anything is sent.
    const tight = await connectWithBudget(sandbox, env, 40);
    const requestsBefore = sandbox.control.requests().length;
    const refused = await tight('summarize_meeting', {
      path: file,
      force: true,
      waitSeconds: 0,
    });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/Nothing was uploaded or submitted/);
    expect(sandbox.control.requests().length).toBe(requestsBefore);
    // The same job, status, receipt and credits (only the entry's write time moved).
    expect(jobsOf((await call('list_jobs')).structured)).toEqual(jobsOf(listedBefore));
    expect((await call('list_jobs')).structured.credits).toEqual(listedBefore.credits);

    // Every upload attempt of the forced call answers 503: it fails before a new job exists.
    sandbox.control.setFaults([{ match: UPLOADS, kind: 'status', status: 503, count: 50 }]);
    const failed = await call('summarize_meeting', { path: file, force: true, waitSeconds: 0 });
    expect(failed.isError).toBe(true);
    expect(failed.text).toMatch(/503/);
    sandbox.control.clearFaults();
    const listedAfter = (await call('list_jobs')).structured;
    expect(jobsOf(listedAfter)).toEqual(jobsOf(listedBefore));
    // The running job still counts; the failed attempt may only ever count more, never less.
    const remainingAfter = (listedAfter.credits as { remaining: number }).remaining;
    expect(remainingAfter).toBeLessThanOrEqual(26);

    // The next plain call resumes the recorded job: nothing uploaded or created again.
    const again = await call('summarize_meeting', { path: file, waitSeconds: 0 });
    expect(again.isError, again.text).toBe(false);
    expect(again.structured).toMatchObject({ jobId, resumed: true });
    expect(
      sandbox.control
        .requests({ ...UPLOADS })
        .filter((request) => request.status === 200 || request.status === 201),
    ).toHaveLength(1);
    expect(sandbox.control.counters().jobsCreated[sandbox.users[0]?.id as string]).toBe(1);
  });
});

describe('daily credit budget and retry_meeting', () => {
  it('checks a retry like a new submission, reserves it today, and puts the entry back when the platform refuses', async () => {
    const { sandbox, mediaDir, env } = await setUp();
    const call = await connectWithBudget(sandbox, env, 30);
    const actionsOn = (jobId: string) =>
      sandbox.control.requests({ method: 'POST', path: `/api/conference-summary/v1/jobs/${jobId}$` }).length;
    const credits = async () => (await call('list_jobs')).structured.credits;

    const first = await call('summarize_meeting', {
      path: await writeSixMinuteRecording(mediaDir, 'first.wav'),
      waitSeconds: 0,
    });
    const firstId = first.structured.jobId as string;
    // A cancelled job is not charged: it stops counting, and a second recording fits.
    expect((await call('cancel_meeting', { jobId: firstId })).structured).toMatchObject({
      status: 'CANCELLED',
    });
    expect(await credits()).toMatchObject({ reserved: 0, remaining: 30 });
    const second = await call('summarize_meeting', {
      path: await writeSixMinuteRecording(mediaDir, 'second.wav'),
      waitSeconds: 0,
    });
    expect(second.isError, second.text).toBe(false);
    const secondId = second.structured.jobId as string;

    // Retrying the first would be charged on completion: 24 + 24 > 30, refused before the action is sent.
    const before = actionsOn(firstId);
    const refused = await call('retry_meeting', { jobId: firstId });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(
      /^Daily credit budget of 30: 24 spent or reserved today \(2026-11-23 UTC\), retrying this job would cost about 24 \(.+\)\. Nothing was uploaded or submitted\./,
    );
    expect(actionsOn(firstId)).toBe(before);

    // A retry the platform refuses (409: the second job is still running) leaves the budget as it was.
    const conflict = await call('retry_meeting', { jobId: secondId });
    expect(conflict.isError).toBe(true);
    expect(conflict.text).toMatch(/^HTTP 409/);
    expect(await credits()).toMatchObject({ reserved: 24, remaining: 6 });
    const listed = (await call('list_jobs')).structured.jobs as { jobId: string; status: string }[];
    expect(listed.find((job) => job.jobId === secondId)?.status).not.toBe('RESTART_REQUESTED');

    // Once the second is cancelled, the retry fits; it is reserved today, so nothing else fits after it.
    await call('cancel_meeting', { jobId: secondId });
    const retried = await call('retry_meeting', { jobId: firstId });
    expect(retried.isError, retried.text).toBe(false);
    expect(retried.structured).toMatchObject({ action: 'retry', done: false });
    expect(actionsOn(firstId)).toBe(before + 1);
    expect(await credits()).toMatchObject({ reserved: 24, remaining: 6 });
    const third = await call('summarize_meeting', {
      path: await writeSixMinuteRecording(mediaDir, 'third.wav'),
      waitSeconds: 0,
    });
    expect(third.isError).toBe(true);
    expect(uploadsSeen(sandbox)).toBe(2);
  });
});

describe('daily credit budget per tenant over HTTP', () => {
  it("counts each tenant's own spending: one tenant's jobs never use another's budget", async () => {
    const { sandbox, root, mediaDir, env } = await setUp();
    const tenantsFile = path.join(root, 'tenants.json');
    await writeFile(
      tenantsFile,
      JSON.stringify({
        tenants: [
          {
            id: 'team-a',
            tokenSha256: tokenSha256('token-a-1f9c'),
            apiKey: sandbox.apiKey,
            budget: { creditsPerDay: 30 },
          },
          // No budget of its own: POLYMODAL_CREDITS_PER_DAY applies.
          { id: 'team-b', tokenSha256: tokenSha256('token-b-7d2e'), apiKey: sandbox.apiKey2 },
        ],
      }),
    );
    const contexts: PlatformContext[] = [];
    const access: TenantAccess = await createTenantAccess({
      env: { ...env, POLYMODAL_TENANTS_FILE: tenantsFile, POLYMODAL_CREDITS_PER_DAY: '40' },
      createContext(options) {
        const context = createPlatformContext({ ...options, clock: () => NOON });
        contexts.push(context);
        return context;
      },
    });
    const handle: HttpServerHandle = await runHttpServer(
      (request) => createServer(request?.platform ? { platform: request.platform } : {}),
      { port: 0, access },
    );
    const tenants = tenantClients(handle.url, [
      sandbox.apiKey,
      sandbox.apiKey2,
      'token-a-1f9c',
      'token-b-7d2e',
    ]);
    cleanups.push(async () => {
      await tenants.close();
      await handle.close();
      await access.close();
    });
    const connect = tenants.connect;
    const teamA = await connect('token-a-1f9c');
    const teamB = await connect('token-b-7d2e');
    const files = await Promise.all(
      ['a1.wav', 'a2.wav', 'b1.wav'].map((name) => writeSixMinuteRecording(mediaDir, name)),
    );

    // team-b spends first; team-a's budget does not see it.
    expect((await teamB('summarize_meeting', { path: files[2], waitSeconds: 0 })).isError).toBe(false);
    const a1 = await teamA('summarize_meeting', { path: files[0], waitSeconds: 0 });
    expect(a1.isError, a1.text).toBe(false);
    const a2 = await teamA('summarize_meeting', { path: files[1], waitSeconds: 0 });
    expect(a2.isError).toBe(true);
    expect(a2.text).toBe(
      'Daily credit budget of 30 for tenant team-a: 24 spent or reserved today (2026-11-23 UTC), this ' +
        'recording would cost about 24 (6 started minutes × 4). Nothing was uploaded or submitted. Try again ' +
        'after 00:00 UTC or raise budget.creditsPerDay.',
    );
    expect(uploadsSeen(sandbox)).toBe(2);

    const listedA = await teamA('list_jobs');
    const listedB = await teamB('list_jobs');
    expect(listedA.structured.credits).toEqual({
      day: '2026-11-23',
      spent: 0,
      reserved: 24,
      creditsPerDay: 30,
      remaining: 6,
    });
    expect(listedB.structured.credits).toEqual({
      day: '2026-11-23',
      spent: 0,
      reserved: 24,
      creditsPerDay: 40,
      remaining: 16,
    });
    expect(contexts).toHaveLength(2);
  });
});
