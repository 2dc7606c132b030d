/**
 * Tenants that share one platform key, over real HTTP against the sandbox (clock held: jobs stay running):
 * the platform cannot keep their jobs apart, so each sees only the jobs in its own ledger. Another tenant's
 * job id is refused as not found before any request about it reaches the platform (counted at the
 * sandbox), with the answer a made-up id gets, and list_meetings shows only the tenant's own recordings. A
 * tenant with a key of its own still reads, by id, jobs made with its key elsewhere.
 */
import path from 'node:path';
import { createPlatformContext } from '@polymodal/mcp-common/host';
import {
  connectInMemory,
  serveTenants,
  startSandboxAndRoot,
  tokenSha256,
} from '@polymodal/mcp-common/testing';
import { type Sandbox, writeMeetingRecording } from '@polymodal/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from '../src/server.js';

const TOKENS = {
  a: 'shared-a-token-1c7f',
  b: 'shared-b-token-92de',
  c: 'own-key-c-token-4a0b',
  d: 'same-key-d-token-e51a',
};

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

/** Requests the sandbox received that name the job (reads, actions, deletes). */
const requestsAbout = (sandbox: Sandbox, jobId: string) =>
  sandbox.control.requests({ path: `/jobs/${jobId}` }).length;

describe('tenants sharing one platform key', () => {
  it("refuse each other's jobs by id before any platform request, and list only their own", async () => {
    const { sandbox, root, mediaDir, close } = await startSandboxAndRoot('mcp-meeting-shared-key-', {
      speed: 100,
      clock: 'held',
    });
    cleanups.push(close);
    const server = await serveTenants({
      sandbox,
      root,
      mediaDir,
      tenants: [
        // a and b have no key of their own: both use POLYMODAL_API_KEY.
        { id: 'team-a', tokenSha256: tokenSha256(TOKENS.a) },
        { id: 'team-b', tokenSha256: tokenSha256(TOKENS.b) },
        // c has a key nobody else uses; d names the server's key as its own, so it shares it too.
        { id: 'team-c', tokenSha256: tokenSha256(TOKENS.c), apiKey: sandbox.apiKey2 },
        { id: 'team-d', tokenSha256: tokenSha256(TOKENS.d), apiKey: sandbox.apiKey },
      ],
      createServer: (options) => createServer(options as Parameters<typeof createServer>[0]),
      secrets: Object.values(TOKENS),
    });
    cleanups.push(() => server.close());
    const secrets = [sandbox.apiKey, sandbox.apiKey2, ...Object.values(TOKENS)];
    const connect = server.connect;
    const teamA = await connect(TOKENS.a);
    const teamB = await connect(TOKENS.b);
    const teamC = await connect(TOKENS.c);
    const teamD = await connect(TOKENS.d);

    const recording = path.join(mediaDir, 'standup.wav');
    await writeMeetingRecording(recording, {
      script: [{ speaker: 'Alice', text: 'Team A plans the launch.', seconds: 20 }],
      sampleRate: 4_000,
    });
    const started = await teamA('summarize_meeting', { path: recording, waitSeconds: 0, title: 'Secret A' });
    expect(started.isError, started.text).toBe(false);
    const jobId = started.structured.jobId as string;

    const seenBefore = requestsAbout(sandbox, jobId);
    const attempts: [string, Record<string, unknown>][] = [
      ['get_meeting', { jobId }],
      ['export_meeting', { jobId, what: 'transcript', format: 'srt' }],
      ['cancel_meeting', { jobId }],
      ['retry_meeting', { jobId }],
      ['resummarize_meeting', { jobId }],
      ['retranslate_meeting', { jobId, targetLanguage: 'en' }],
      ['update_meeting', { jobId, title: 'taken over' }],
      ['delete_meeting', { jobId, confirm: true }],
    ];
    for (const [tool, args] of attempts) {
      for (const other of [teamB, teamD]) {
        const refused = await other(tool, args);
        const madeUp = await other(tool, { ...args, jobId: 'job-that-never-was' });
        expect(refused.isError, `${tool}: ${refused.text}`).toBe(true);
        expect(refused.text).toBe(
          `HTTP 404: job ${jobId} is unknown or belongs to another user. List jobs to find a valid id.`,
        );
        // The same answer as an id that exists nowhere: nothing tells that the job exists.
        expect(refused.text.replace(jobId, 'X')).toBe(madeUp.text.replace('job-that-never-was', 'X'));
        expect(refused.text).not.toContain('Secret A');
      }
    }
    // Not one of those calls reached the platform about the job.
    expect(requestsAbout(sandbox, jobId)).toBe(seenBefore);

    // The account's list shows a tenant on the shared key only its own recordings.
    const listedByB = await teamB('list_meetings');
    expect(listedByB.isError, listedByB.text).toBe(false);
    expect(listedByB.structured.meetings).toEqual([]);
    expect(listedByB.text).not.toContain('Secret A');
    const listedByA = await teamA('list_meetings');
    expect(listedByA.structured.meetings).toEqual([
      expect.objectContaining({ id: jobId, title: 'Secret A' }),
    ]);

    // Its owner still reads it, and the job is untouched.
    const ownRead = await teamA('get_meeting', { jobId });
    expect(ownRead.isError, ownRead.text).toBe(false);
    expect(ownRead.structured).toMatchObject({ jobId, title: 'Secret A' });
    expect(ownRead.structured.status).not.toBe('CANCELLED');

    // A tenant with a key of its own reaches every job of its key by id, as the platform scopes it: here a
    // job made on that key by a server outside this tenants file (so not in team-c's ledger).
    const elsewhereContext = createPlatformContext({
      env: {
        POLYMODAL_BASE_URL: sandbox.url,
        POLYMODAL_API_KEY: sandbox.apiKey2,
        POLYMODAL_STATE_DIR: path.join(root, 'elsewhere'),
        POLYMODAL_ALLOWED_DIRS: mediaDir,
        POLYMODAL_OUTPUT_DIR: path.join(root, 'out'),
        POLYMODAL_LOG_LEVEL: 'error',
      },
    });
    const elsewhere = await connectInMemory(createServer({ platform: elsewhereContext }), { secrets });
    cleanups.push(async () => {
      await elsewhere.close();
      await elsewhereContext.close();
    });
    const other = await elsewhere.call('summarize_meeting', { path: recording, waitSeconds: 0 });
    expect(other.isError, other.text).toBe(false);
    const readByC = await teamC('get_meeting', { jobId: other.structured.jobId });
    expect(readByC.isError, readByC.text).toBe(false);
    expect(readByC.structured).toMatchObject({ jobId: other.structured.jobId });
  });
});
