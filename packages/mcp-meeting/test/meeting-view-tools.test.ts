/**
 * The meeting viewer's app-only tools against the sandbox: a long meeting's transcript reaches the view a
 * page at a time (search results paged the same way), the first page brings the speakers' talk time and the
 * timeline, an export is the file itself and writes nothing; over HTTP (POLYMODAL_VIEWS=on, stateless) a
 * tenant pages only its own meetings, and another tenant's job id is refused before the platform is asked.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { serveTenants, startSandboxAndRoot, teamTenants } from '@polymodal/mcp-common/testing';
import { type MeetingScriptLine, writeMeetingRecording } from '@polymodal/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from '../src/server.js';

const SEGMENTS = 120;
const VOICES = ['Ana', 'Ben', 'Chloe'];
/** Every tenth line mentions the budget; the speakers take turns, Ana twice as often as the others. */
const LONG_SCRIPT: MeetingScriptLine[] = Array.from({ length: SEGMENTS }, (_, line) => ({
  speaker: VOICES[[0, 1, 0, 2][line % 4] as number] as string,
  text: line % 10 === 3 ? `Line ${line + 1}: the budget needs review.` : `Line ${line + 1}: status update.`,
  seconds: 1,
}));

const TOKENS = { a: 'viewer-a-token-5e1d', b: 'viewer-b-token-8c2f' };

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function serve() {
  const { sandbox, root, mediaDir, close } = await startSandboxAndRoot('mcp-meeting-view-tools-', {
    speed: 100,
  });
  cleanups.push(close);
  const server = await serveTenants({
    sandbox,
    root,
    mediaDir,
    tenants: teamTenants(TOKENS),
    // Stateless HTTP never sees a client's capabilities: the deployment says its hosts render views.
    createServer: (options) =>
      createServer({
        ...(options as Parameters<typeof createServer>[0]),
        env: { ...process.env, POLYMODAL_VIEWS: 'on' },
      }),
    secrets: Object.values(TOKENS),
  });
  cleanups.push(() => server.close());
  return { sandbox, root, mediaDir, server };
}

describe('the meeting viewer’s app-only tools', () => {
  it('page a long transcript and its search results, with talk time on the first page', async () => {
    const { sandbox, root, mediaDir, server } = await serve();
    const call = await server.connect(TOKENS.a);
    const recording = path.join(mediaDir, 'long.wav');
    await writeMeetingRecording(recording, { script: LONG_SCRIPT, sampleRate: 4_000 });
    const done = await call('summarize_meeting', { path: recording, sourceLanguage: 'en', waitSeconds: 50 });
    expect(done.isError, done.text).toBe(false);
    expect(done.structured.status).toBe('COMPLETED');
    const jobId = done.structured.jobId as string;

    const first = await call('meeting_view_page', { jobId, maxSegments: 50 });
    expect(first.isError, first.text).toBe(false);
    expect(first.structured).toMatchObject({
      jobId,
      total: SEGMENTS,
      matched: SEGMENTS,
      from: 1,
      nextFrom: 51,
    });
    expect(first.structured.segments.map((segment: { index: number }) => segment.index)).toEqual(
      Array.from({ length: 50 }, (_, index) => index + 1),
    );
    // Talk time: Ana speaks half the lines, Ben and Chloe a quarter each (all lines last alike).
    const speakers = first.structured.speakers as { name: string; share: number; seconds: number }[];
    expect(speakers).toHaveLength(3);
    const shares = speakers.map((speaker) => Math.round(speaker.share * 100)).sort((a, b) => b - a);
    expect(shares[0]).toBeGreaterThanOrEqual(45);
    expect(shares[0]).toBeLessThanOrEqual(55);
    expect(shares.reduce((sum, share) => sum + share, 0)).toBeGreaterThanOrEqual(99);
    // The timeline merges a speaker's consecutive lines only: the speakers alternate on every line but one
    // in four, so there are as many runs as lines.
    const timeline = first.structured.timeline as [number, number, number][];
    expect(timeline).toHaveLength(SEGMENTS);
    expect(first.structured.durationSeconds).toBeGreaterThan(SEGMENTS * 0.9);

    const last = await call('meeting_view_page', { jobId, from: 101, maxSegments: 50 });
    expect(last.structured).toMatchObject({ from: 101, nextFrom: null });
    expect(last.structured.segments).toHaveLength(SEGMENTS - 100);
    // Talk time comes with the first page only.
    expect(last.structured.speakers).toBeUndefined();

    // Search: 12 lines mention the budget; pages of 5 count among the matches.
    const found = await call('meeting_view_page', { jobId, query: 'BUDGET', maxSegments: 5 });
    expect(found.structured).toMatchObject({ total: SEGMENTS, matched: 12, from: 1, nextFrom: 6 });
    const lastFound = await call('meeting_view_page', { jobId, query: 'budget', from: 11, maxSegments: 5 });
    expect(lastFound.structured).toMatchObject({ matched: 12, from: 11, nextFrom: null });
    const texts = [...found.structured.segments, ...lastFound.structured.segments].map(
      (segment: { text: string }) => segment.text,
    );
    expect(texts).toHaveLength(7);
    for (const text of texts) expect(text).toMatch(/budget/);
    expect(lastFound.structured.segments.map((segment: { index: number }) => segment.index)).toEqual([
      104, 114,
    ]);

    // Export: the file, as the view hands it to the host's download; nothing is written on the server.
    const exported = await call('meeting_view_export', { jobId, what: 'transcript', format: 'vtt' });
    expect(exported.isError, exported.text).toBe(false);
    const [file] = exported.content as unknown as [
      { type: string; resource: { mimeType: string; text: string } },
    ];
    expect(file.type).toBe('resource');
    expect(file.resource.mimeType).toBe('text/vtt');
    expect(file.resource.text.startsWith('WEBVTT')).toBe(true);
    expect(file.resource.text).toContain('Line 120: status update.');
    expect(await readdir(path.join(root, 'out')).catch(() => [])).toEqual([]);

    // A summary exports as Markdown only: said before the platform is asked.
    const reads = sandbox.control.requests({ path: `/jobs/${jobId}` }).length;
    const refused = await call('meeting_view_export', { jobId, what: 'summary', format: 'srt' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/md only/);
    expect(sandbox.control.requests({ path: `/jobs/${jobId}` })).toHaveLength(reads);
  }, 120_000);

  it("refuse another tenant's meeting before the platform is asked", async () => {
    const { sandbox, mediaDir, server } = await serve();
    const teamA = await server.connect(TOKENS.a);
    const teamB = await server.connect(TOKENS.b);
    const recording = path.join(mediaDir, 'private.wav');
    await writeMeetingRecording(recording, {
      script: [{ speaker: 'Alice', text: 'Team A keeps its plans private.', seconds: 4 }],
      sampleRate: 4_000,
    });
    const done = await teamA('summarize_meeting', { path: recording, waitSeconds: 50 });
    expect(done.structured.status).toBe('COMPLETED');
    const jobId = done.structured.jobId as string;
    const own = await teamA('meeting_view_page', { jobId });
    expect(own.structured.segments[0].text).toContain('private');
    // Not even its own recording goes back to a remote tenant (the view offers no "play from here").
    expect(own.structured.canPlayRecording).toBe(false);
    const recordingRead = await teamA('meeting_view_recording', { path: recording });
    expect(recordingRead.isError).toBe(true);
    expect(recordingRead.text).toMatch(/played only for clients on the server's machine/);
    expect(JSON.stringify(recordingRead.content)).not.toMatch(/"blob"/);

    const before = sandbox.control.requests({ path: `/jobs/${jobId}` }).length;
    for (const [name, args] of [
      ['meeting_view_page', { jobId }],
      ['meeting_view_export', { jobId, what: 'transcript', format: 'md' }],
    ] as const) {
      const refused = await teamB(name, args);
      expect(refused.isError, name).toBe(true);
      expect(refused.text).toMatch(/^HTTP 404: job \S+ is unknown or belongs to another user/);
      expect(refused.text).not.toContain('private');
    }
    expect(sandbox.control.requests({ path: `/jobs/${jobId}` })).toHaveLength(before);
  }, 120_000);
});
