/**
 * The meeting viewer end to end, as a person sees it in a host that renders MCP Apps: the built bin over
 * stdio, a client that declares the UI extension, the view read as its `ui://` resource and mounted in
 * headless Chromium the way the spec lays it out (view-host.ts). It is fed a real summarize_meeting answer of
 * a running job (the sandbox's clock held), shows the progress, follows the job through get_meeting by itself
 * once the clock moves, and then shows the real summary, the speakers' talk time and the transcript; search,
 * the translation switch and an export to the host's download are used as a person would.
 */
/// <reference lib="dom" />

import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { serverEnv, serveTenants, startSandboxAndRoot, tokenSha256 } from '@polymodal/mcp-common/testing';
import {
  connectBin,
  listedTool,
  RENDERS_VIEWS,
  readView,
  saveScreenshot,
  startViewHost,
  type ViewHost,
} from '@polymodal/mcp-common/testing/views';
// The package by its name: the built server, every module of it the built one.
import { createServer as createBuiltServer } from '@polymodal/mcp-meeting';
import { type Sandbox, startSandbox, writeMeetingRecording } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHORT_SCRIPT } from './support/harness.js';
import { mountViewerOnScript } from './support/mount-viewer.js';

const PACKAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(PACKAGE, 'dist', 'index.js');
const VIEW_URI = 'ui://polymodal/meeting-viewer.html';

interface Segment {
  start: number;
  speaker: string;
  text: string;
}

describe('the meeting viewer in a browser host', () => {
  let sandbox: Sandbox;
  let root: string;
  let client: Client;
  let host: ViewHost | undefined;

  beforeAll(async () => {
    // Held: the job stays running until the test moves the clock.
    sandbox = await startSandbox({ speed: 100, clock: 'held' });
    root = await mkdtemp(path.join(os.tmpdir(), 'mcp-meeting-view-'));
    await writeMeetingRecording(path.join(root, 'launch.wav'), { script: SHORT_SCRIPT });
    client = await connectBin({ bin: BIN, env: serverEnv(root, sandbox, 20), capabilities: RENDERS_VIEWS });
  });

  afterAll(async () => {
    await host?.close();
    await client?.close();
    await sandbox?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('lists the viewer on the meeting tools and its helpers as app-only', async () => {
    const { tools } = await client.listTools();
    const withViewer = tools.filter(
      (tool) => (tool._meta?.ui as { resourceUri?: string })?.resourceUri === VIEW_URI,
    );
    expect(withViewer.map((tool) => tool.name)).toEqual([
      'summarize_meeting',
      'get_meeting',
      'retry_meeting',
      'resummarize_meeting',
      'retranslate_meeting',
    ]);
    expect(
      tools
        .filter((tool) => (tool._meta?.ui as { visibility?: unknown } | undefined)?.visibility)
        .map((tool) => [tool.name, tool._meta?.ui]),
    ).toEqual([
      ['meeting_view_page', { visibility: ['app'] }],
      ['meeting_view_export', { visibility: ['app'] }],
      ['meeting_view_recording', { visibility: ['app'] }],
    ]);
  });

  it('shows the progress, follows the job to its end, then the summary, speakers and searchable transcript', async () => {
    const view = await readView(client, VIEW_URI);
    const input = {
      path: path.join(root, 'launch.wav'),
      sourceLanguage: 'en',
      targetLanguage: 'de',
      title: 'Beta launch review',
      waitSeconds: 0,
    };
    const result = await client.callTool(
      { name: 'summarize_meeting', arguments: input },
      { timeout: 60_000 },
    );
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const { jobId, done } = result.structuredContent as { jobId: string; done: boolean };
    expect(done).toBe(false);

    host = await startViewHost(client);
    const frame = await host.mount({
      html: view.html,
      csp: view.csp,
      hostContext: { theme: 'light', toolInfo: { tool: await listedTool(client, 'summarize_meeting') } },
      input,
      result,
      timeoutMs: 60_000,
    });
    // Running: the progress is shown, and the view follows the job itself.
    await frame.waitForSelector('#progress-row', { state: 'visible', timeout: 30_000 });
    expect(await frame.textContent('#progress-text')).toMatch(/^[A-Z_]+ · \d+%$/);
    expect(await frame.textContent('h1')).toBe('Beta launch review');
    await expect.poll(() => host?.bridgeEvents(), { timeout: 30_000 }).toContain('tools/call get_meeting');

    // The platform finishes the job; the view's own get_meeting sees it and shows the meeting.
    sandbox.control.advance(30 * 60 * 1000);
    await frame.waitForSelector('#segments li', { timeout: 60_000 });

    const finished = await client.callTool({
      name: 'get_meeting',
      arguments: { jobId, include: ['summary', 'transcript', 'translation'] },
    });
    const meeting = finished.structuredContent as {
      summary: { overview: string; actionItems: { text: string }[] };
      transcript: { segments: Segment[] };
      translation: { segments: Segment[] };
    };
    const seen = await frame.evaluate(() => ({
      progressShown: document.getElementById('progress-row')?.checkVisibility(),
      overview: document.getElementById('overview')?.textContent,
      lists: document.getElementById('summary-lists')?.textContent,
      speakers: Array.from(document.querySelectorAll('#speakers .name')).map((node) => node.textContent),
      shares: Array.from(document.querySelectorAll('#speakers .share')).map((node) => node.textContent),
      timelineRuns: document.querySelectorAll('#timeline > span').length,
      timelineLabel: document.getElementById('timeline')?.getAttribute('aria-label'),
      segments: Array.from(document.querySelectorAll('#segments li')).map((li) => ({
        time: li.querySelector('time')?.textContent,
        who: li.querySelector('.who')?.textContent,
        text: li.querySelector('.text')?.textContent,
      })),
      exportsShown: document.getElementById('exports')?.checkVisibility(),
    }));
    expect(seen.progressShown).toBe(false);
    expect(meeting.summary.overview.length).toBeGreaterThan(0);
    expect(seen.overview).toBe(meeting.summary.overview);
    for (const item of meeting.summary.actionItems) expect(seen.lists).toContain(item.text);
    // The speakers the platform told apart, in the order they first spoke (three voices in the recording).
    const speakers = [...new Set(meeting.transcript.segments.map((segment) => segment.speaker))];
    expect(speakers).toHaveLength(3);
    expect(seen.speakers).toEqual(speakers);
    // Shares of talk time add up to about 100%.
    const shares = seen.shares.map((text) => Number(text?.split('%')[0]));
    expect(shares.reduce((sum, share) => sum + share, 0)).toBeGreaterThanOrEqual(98);
    expect(seen.timelineRuns).toBeGreaterThanOrEqual(4);
    expect(seen.timelineLabel).toMatch(new RegExp(speakers.map((name) => `${name} \\d+%`).join(', ')));
    // Every segment, timestamped, with its speaker and words, as get_meeting has them.
    expect(seen.segments).toEqual(
      meeting.transcript.segments.map((segment) => ({
        time: clock(segment.start),
        who: segment.speaker,
        text: segment.text,
      })),
    );
    expect(seen.segments.length).toBeGreaterThanOrEqual(2);
    expect(seen.exportsShown).toBe(true);
    await saveScreenshot(host, 'meeting-viewer');

    // Play from a segment: the recording comes through the host on the first click, and plays from there.
    const third = meeting.transcript.segments[2] as Segment;
    await frame.click(`#segments li:nth-child(3) button.play`);
    await frame.waitForFunction(
      (start) => {
        const audio = document.getElementById('recording') as HTMLAudioElement;
        return !audio.hidden && audio.readyState >= 1 && audio.currentTime >= start - 0.05;
      },
      third.start,
      { timeout: 30_000 },
    );
    const played = await frame.evaluate(() => {
      const audio = document.getElementById('recording') as HTMLAudioElement;
      return { source: audio.currentSrc.slice(0, 22), duration: audio.duration };
    });
    expect(played.source).toBe('data:audio/wav;base64,');
    expect(played.duration).toBeGreaterThan(third.start);
    expect(await frame.getAttribute('#segments li:nth-child(3) button.play', 'aria-label')).toBe(
      `Play from ${clock(third.start)}`,
    );
    expect(await host.bridgeEvents()).toContain('tools/call meeting_view_recording');

    // Search: only the segments with the word, the word marked.
    await frame.fill('#search', 'beta');
    const withBeta = meeting.transcript.segments.filter((segment) => /beta/i.test(segment.text));
    expect(withBeta.length).toBeGreaterThanOrEqual(1);
    await frame.waitForFunction(
      (count) => document.querySelectorAll('#segments li').length === count,
      withBeta.length,
      { timeout: 30_000 },
    );
    expect(
      await frame.$$eval('#segments mark', (marks) => marks.map((mark) => mark.textContent?.toLowerCase())),
    ).toEqual(
      withBeta.flatMap((segment) => segment.text.match(/beta/gi) ?? []).map((word) => word.toLowerCase()),
    );
    expect(await frame.textContent('#transcript-status')).toContain(
      `${withBeta.length} of ${meeting.transcript.segments.length} segments contain “beta”`,
    );
    await frame.fill('#search', '');
    await frame.waitForFunction(
      (count) => document.querySelectorAll('#segments li').length === count,
      meeting.transcript.segments.length,
      { timeout: 30_000 },
    );

    // The translation, a switch away.
    await frame.check('input[name="track"][value="translation"]');
    const translated = meeting.translation.segments.map((segment) => segment.text);
    expect(translated).not.toEqual(meeting.transcript.segments.map((segment) => segment.text));
    await frame.waitForFunction(
      (first) => document.querySelector('#segments li .text')?.textContent === first,
      translated[0],
      { timeout: 30_000 },
    );
    expect(
      await frame.$$eval('#segments li .text', (nodes) => nodes.map((node) => node.textContent)),
    ).toEqual(translated);

    // Export: the host is asked to download the translation's subtitles (the buttons say so now); nothing is
    // written on the server.
    expect(
      await frame.$$eval('#exports button', (buttons) => buttons.map((button) => button.textContent)),
    ).toEqual(['Summary (.md)', 'Translation (.md)', 'Translation (.srt)', 'Translation (.vtt)']);
    await frame.click('#exports button[data-format="srt"]');
    await expect.poll(() => host?.hostRequests(), { timeout: 30_000 }).toHaveLength(1);
    const [request] = (await host.hostRequests()) as [
      {
        method: string;
        params: { contents: { type: string; resource: { uri: string; mimeType: string; text: string } }[] };
      },
    ];
    expect(request.method).toBe('ui/download-file');
    const [file] = request.params.contents;
    expect(file?.type).toBe('resource');
    expect(file?.resource.mimeType).toBe('application/x-subrip');
    expect(file?.resource.uri).toMatch(/^polymodal:\/\/exports\/Beta-launch-review-translation\.srt$/);
    expect(file?.resource.text).toContain(translated[0]);
    expect(await readdir(path.join(root, 'out')).catch(() => [])).toEqual([]);
    // The same file export_meeting saves.
    const saved = await client.callTool({
      name: 'export_meeting',
      arguments: { jobId, what: 'translation', format: 'srt' },
    });
    const { path: savedPath } = saved.structuredContent as { path: string };
    expect(file?.resource.text).toBe(await readFile(savedPath, 'utf8'));

    expect(host.errors).toEqual([]);
  }, 240_000);
});

describe('the meeting viewer over HTTP, for a tenant', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it("renders a tenant's finished meeting through a stateless HTTP deployment that offers views", async () => {
    const { sandbox, root, mediaDir, close } = await startSandboxAndRoot('mcp-meeting-view-http-', {
      speed: 100,
    });
    cleanups.push(close);
    const token = 'viewer-http-token-3f9a';
    const server = await serveTenants({
      sandbox,
      root,
      mediaDir,
      tenants: [{ id: 'team-a', tokenSha256: tokenSha256(token) }],
      // The built server, as a deployment runs it; its hosts render views (POLYMODAL_VIEWS=on).
      createServer: (options) =>
        createBuiltServer({
          ...(options as Parameters<typeof createBuiltServer>[0]),
          env: { ...process.env, POLYMODAL_VIEWS: 'on' },
        }),
      secrets: [token],
    });
    cleanups.push(() => server.close());
    const client = new Client({ name: 'view-host', version: '1.0.0' }, { capabilities: RENDERS_VIEWS });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.handle.url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    cleanups.push(() => client.close());
    const recording = path.join(mediaDir, 'standup.wav');
    await writeMeetingRecording(recording, { script: SHORT_SCRIPT, sampleRate: 4_000 });
    const input = { path: recording, sourceLanguage: 'en', waitSeconds: 50 };
    const result = await client.callTool(
      { name: 'summarize_meeting', arguments: input },
      { timeout: 60_000 },
    );
    expect((result.structuredContent as { status: string }).status).toBe('COMPLETED');

    const view = await readView(client, VIEW_URI);
    const host = await startViewHost(client);
    cleanups.push(() => host.close());
    const frame = await mountViewerOnScript(host, client, { view, theme: 'dark', input, result });
    // A remote tenant's view offers no "play from here": the recording is not sent off the server's machine.
    expect(await frame.$$eval('#segments button.play', (nodes) => nodes.length)).toBe(0);
    expect(await frame.$$eval('#segments time', (nodes) => nodes.length)).toBe(SHORT_SCRIPT.length);
    expect(await host.bridgeEvents()).toContain('tools/call meeting_view_page');
    await saveScreenshot(host, 'meeting-viewer-dark');
    expect(host.errors).toEqual([]);
  }, 180_000);
});

/** The viewer's clock: "0:05", "1:02:05". */
function clock(seconds: number): string {
  const total = Math.floor(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor(total / 60) % 60;
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}
