/**
 * The media player view end to end, as a person sees it in a host that renders MCP Apps: the built bin over
 * stdio, a client that declares the UI extension, the view read as its `ui://` resource and mounted in
 * headless Chromium the way the spec lays it out (view-host.ts: sandbox proxy on another origin, CSP from the
 * resource's metadata, ext-apps' AppBridge), fed the input and the real result of a synthesize_speech call
 * against the sandbox; the view reads the audio through the host and plays it. A screenshot is written to
 * test-artifacts/. Which tools carry which view (the player, the flashcard deck) is listed here once; a
 * client without the extension sees no view anywhere.
 */
/// <reference lib="dom" />
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client, ClientCapabilities } from '@modelcontextprotocol/client';
import { serverEnv } from '@polymodal/mcp-common/testing';
import {
  connectBin,
  listedTool,
  RENDERS_VIEWS,
  readView,
  saveScreenshot,
  startViewHost,
  type ViewHost,
} from '@polymodal/mcp-common/testing/views';
import { type Sandbox, startSandbox } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PACKAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(PACKAGE, 'dist', 'index.js');
const VIEW_URI = 'ui://polymodal/media-player.html';
const DECK_URI = 'ui://polymodal/flashcard-deck.html';

describe('the media player view in a browser host', () => {
  let sandbox: Sandbox;
  let root: string;
  const clients: Client[] = [];
  let host: ViewHost | undefined;

  async function connect(capabilities: ClientCapabilities): Promise<Client> {
    const client = await connectBin({ bin: BIN, env: serverEnv(root, sandbox), capabilities });
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    sandbox = await startSandbox({ speed: 100 });
    root = await mkdtemp(path.join(os.tmpdir(), 'mcp-media-view-'));
  });

  afterAll(async () => {
    await host?.close();
    for (const client of clients) await client.close();
    await sandbox?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('plays the real result of synthesize_speech, with the file name, size and job, and no console error', async () => {
    const client = await connect(RENDERS_VIEWS);
    const { tools } = await client.listTools();
    const synthesize = tools.find((tool) => tool.name === 'synthesize_speech');
    // Which tools carry which view: the player for speech and video, the deck for flashcards, no other.
    expect(
      Object.fromEntries(tools.filter((tool) => tool._meta?.ui).map((tool) => [tool.name, tool._meta])),
    ).toEqual({
      generate_video: { ui: { resourceUri: VIEW_URI } },
      image_to_video: { ui: { resourceUri: VIEW_URI } },
      get_video_job: { ui: { resourceUri: VIEW_URI } },
      create_flashcards: { ui: { resourceUri: DECK_URI } },
      get_flashcards: { ui: { resourceUri: DECK_URI } },
      synthesize_speech: { ui: { resourceUri: VIEW_URI } },
      get_speech: { ui: { resourceUri: VIEW_URI } },
    });
    const { resources } = await client.listResources();
    expect(resources.filter((resource) => resource.uri.startsWith('ui://'))).toEqual([
      expect.objectContaining({ uri: VIEW_URI, mimeType: 'text/html;profile=mcp-app' }),
      expect.objectContaining({ uri: DECK_URI, mimeType: 'text/html;profile=mcp-app' }),
    ]);

    const view = await readView(client, VIEW_URI);

    const input = { text: 'The next meeting is on Tuesday at ten.', language: 'en', waitSeconds: 30 };
    const result = await client.callTool(
      { name: 'synthesize_speech', arguments: input },
      { timeout: 40_000 },
    );
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const { savedPath, sizeBytes, jobId } = result.structuredContent as {
      savedPath: string;
      sizeBytes: number;
      jobId: string;
    };
    const fileName = path.basename(savedPath);

    host = await startViewHost(client);
    const frame = await host.mount({
      html: view.html,
      csp: view.csp,
      hostContext: { theme: 'dark', toolInfo: { tool: synthesize! } },
      input,
      result,
      timeoutMs: 60_000,
    });
    // Playable: the audio element's data: source resolved to a decoded duration.
    await frame.waitForFunction(
      () => {
        const audio = document.querySelector('audio');
        return audio !== null && !audio.hidden && audio.readyState >= 1 && audio.duration > 0;
      },
      undefined,
      { timeout: 30_000 },
    );
    const seen = await frame.evaluate(() => ({
      heading: document.querySelector('h1')?.textContent,
      facts: document.querySelector('dl')?.textContent,
      transcript: document.querySelector('blockquote')?.textContent,
      source: document.querySelector('audio')?.currentSrc.slice(0, 22),
      controls: document.querySelector('audio')?.controls,
      label: document.getElementById(document.querySelector('audio')?.getAttribute('aria-labelledby') ?? '')
        ?.textContent,
      theme: document.documentElement.dataset.theme,
    }));
    expect(seen).toEqual({
      heading: fileName,
      facts: expect.stringContaining(jobId),
      transcript: input.text,
      source: 'data:audio/wav;base64,',
      controls: true,
      label: fileName,
      theme: 'dark',
    });
    expect(seen.facts).toContain(`${(sizeBytes / 1024).toFixed(1)} KB`);
    expect(await host.bridgeEvents()).toEqual([
      'sandbox-ready',
      'initialized',
      'tool-input',
      'tool-result',
      `resources/read polymodal://outputs/${encodeURIComponent(fileName)}`,
    ]);
    await saveScreenshot(host, 'media-player-speech');
    expect(host.errors).toEqual([]);
    // The view ran under the strict CSP: no string evaluated, no network. (Run from a timer: code that
    // DevTools evaluates itself is exempt from the eval check.)
    const probed = await frame.evaluate(
      () =>
        new Promise((resolve) =>
          setTimeout(() => {
            let evaluated: string;
            try {
              // biome-ignore lint/security/noGlobalEval: the probe: the view's CSP must refuse it.
              evaluated = String(globalThis.eval('1 + 1'));
            } catch (error) {
              evaluated = (error as Error).name;
            }
            fetch('http://127.0.0.1:9/').then(
              () => resolve({ evaluated, fetched: 'fetched' }),
              (error: Error) => resolve({ evaluated, fetched: error.name }),
            );
          }, 0),
        ),
    );
    expect(probed).toEqual({ evaluated: 'EvalError', fetched: 'TypeError' });
    expect(host.errors.join('\n')).toMatch(/Content Security Policy/);
  }, 150_000);

  it('shows a running synthesis, and "Check again" calls get_speech and plays the saved audio', async () => {
    const client = await connect(RENDERS_VIEWS);
    const view = await readView(client, VIEW_URI);
    // Held: the synthesis is still running when the call answers, however slow the machine is.
    sandbox.control.holdClock();
    try {
      const input = { text: 'Please send the minutes by Friday.', language: 'en', waitSeconds: 0 };
      const started = await client.callTool({
        name: 'synthesize_speech',
        arguments: input,
      });
      const { jobId, done } = started.structuredContent as { jobId: string; done: boolean };
      expect(done).toBe(false);
      const checking = await startViewHost(client);
      try {
        const frame = await checking.mount({
          html: view.html,
          csp: view.csp,
          hostContext: { theme: 'light', toolInfo: { tool: await listedTool(client, 'synthesize_speech') } },
          input,
          result: started,
          timeoutMs: 60_000,
        });
        const checkAgain = frame.getByRole('button', { name: 'Check again' });
        await checkAgain.waitFor({ timeout: 20_000 });
        expect(await frame.textContent('h1')).toBe('Still working…');
        // The synthesis finishes on the platform before the person checks again.
        sandbox.control.advance(60_000);
        await checkAgain.click();
        await frame.waitForFunction(
          () => {
            const audio = document.querySelector('audio');
            return audio !== null && !audio.hidden && audio.readyState >= 1 && audio.duration > 0;
          },
          undefined,
          { timeout: 30_000 },
        );
        expect(await frame.textContent('h1')).toMatch(/^speech_.*\.wav$/);
        expect(await frame.textContent('dl')).toContain(jobId);
        expect(await checkAgain.isVisible()).toBe(false);
        const events = await checking.bridgeEvents();
        expect(events.slice(0, 5)).toEqual([
          'sandbox-ready',
          'initialized',
          'tool-input',
          'tool-result',
          'tools/call get_speech',
        ]);
        expect(events[5]).toMatch(/^resources\/read polymodal:\/\/outputs\/speech_.*\.wav$/);
        expect(checking.errors).toEqual([]);
      } finally {
        await checking.close();
      }
    } finally {
      sandbox.control.releaseClock();
    }
  }, 120_000);

  it('offers nothing of the view to a client without the extension', async () => {
    const client = await connect({});
    const { tools } = await client.listTools();
    expect(tools.some((tool) => tool._meta?.ui !== undefined)).toBe(false);
    expect(JSON.stringify(tools)).not.toContain('ui://');
    const { resources } = await client.listResources();
    expect(resources.some((resource) => resource.uri.startsWith('ui://'))).toBe(false);
    await expect(client.readResource({ uri: VIEW_URI })).rejects.toThrow();
    await expect(client.readResource({ uri: DECK_URI })).rejects.toThrow();
  }, 60_000);
});
