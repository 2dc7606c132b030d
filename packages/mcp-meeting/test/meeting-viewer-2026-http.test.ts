/**
 * The meeting viewer from a stateless HTTP deployment to clients of protocol 2026-07-28, with
 * POLYMODAL_VIEWS unset (auto): there every request carries the client's capabilities, so the views go to a
 * client whose requests declare the `io.modelcontextprotocol/ui` extension, and to no other, without any
 * setting. The built server runs in `runHttpServer` as a deployment runs it (one server per request), the
 * clients are the SDK's, pinned to 2026-07-28, and the view is mounted in headless Chromium (view-host.ts)
 * with the real result of a call.
 */
/// <reference lib="dom" />

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, type ClientCapabilities, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { VIEW_MIME_TYPE } from '@polymodal/mcp-common/host';
import { createTenantAccess, type HttpServerHandle, runHttpServer } from '@polymodal/mcp-common/http';
import { serverEnv, startSandboxAndRoot } from '@polymodal/mcp-common/testing';
import { RENDERS_VIEWS, readView, saveScreenshot, startViewHost } from '@polymodal/mcp-common/testing/views';
// The package by its name: the built server, every module of it the built one.
import { createServer as createBuiltServer } from '@polymodal/mcp-meeting';
import { writeMeetingRecording } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHORT_SCRIPT } from './support/harness.js';
import { mountViewerOnScript } from './support/mount-viewer.js';

const PACKAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BUILT_VIEW = path.join(PACKAGE, 'dist', 'views', 'meeting-viewer.html');
const VIEW_URI = 'ui://polymodal/meeting-viewer.html';
const MODERN = '2026-07-28';

describe('the meeting viewer from a stateless HTTP deployment, on 2026-07-28, POLYMODAL_VIEWS unset', () => {
  const cleanups: (() => Promise<void>)[] = [];
  let handle: HttpServerHandle;
  let mediaDir: string;

  /** A client pinned to 2026-07-28 with `capabilities`, on the deployment. */
  async function connectModern(capabilities: ClientCapabilities): Promise<Client> {
    const client = new Client(
      { name: 'view-host', version: '1.0.0' },
      { capabilities, versionNegotiation: { mode: { pin: MODERN } } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
    cleanups.push(() => client.close());
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    return client;
  }

  beforeAll(async () => {
    const started = await startSandboxAndRoot('mcp-meeting-view-2026-', { speed: 100 });
    cleanups.push(started.close);
    mediaDir = started.mediaDir;
    // The variables a deployment sets, and not POLYMODAL_VIEWS; given whole, so the test process's own
    // environment cannot set it either.
    const env = serverEnv(started.root, started.sandbox, 20);
    expect(env).not.toHaveProperty('POLYMODAL_VIEWS');
    const access = await createTenantAccess({ env, name: 'meeting' });
    cleanups.push(() => access.close());
    handle = await runHttpServer(
      (request) => createBuiltServer({ ...(request?.platform ? { platform: request.platform } : {}), env }),
      { port: 0, access },
    );
    cleanups.push(() => handle.close());
    expect(handle.mode).toBe('stateless');
  }, 60_000);

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('lists, serves and mounts the viewer for a client that declares the extension', async () => {
    const client = await connectModern(RENDERS_VIEWS);

    const { tools } = await client.listTools();
    const summarize = tools.find((tool) => tool.name === 'summarize_meeting');
    expect((summarize?._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri).toBe(VIEW_URI);
    // The tools only the view calls are listed too, for the view alone.
    expect(tools.find((tool) => tool.name === 'meeting_view_page')?._meta?.ui).toEqual({
      visibility: ['app'],
    });
    const { resources } = await client.listResources();
    expect(resources.find((resource) => resource.uri === VIEW_URI)?.mimeType).toBe(VIEW_MIME_TYPE);
    const view = await readView(client, VIEW_URI);
    expect(view.html).toBe(await readFile(BUILT_VIEW, 'utf8'));

    const recording = path.join(mediaDir, 'standup.wav');
    await writeMeetingRecording(recording, { script: SHORT_SCRIPT, sampleRate: 4_000 });
    const input = { path: recording, sourceLanguage: 'en', waitSeconds: 50 };
    const result = await client.callTool(
      { name: 'summarize_meeting', arguments: input },
      { timeout: 60_000 },
    );
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect((result.structuredContent as { status: string }).status).toBe('COMPLETED');

    const host = await startViewHost(client);
    cleanups.push(() => host.close());
    await mountViewerOnScript(host, client, { view, theme: 'light', input, result });
    // The view's own call of an app-only tool went through this client, its request declaring the extension.
    expect(await host.bridgeEvents()).toContain('tools/call meeting_view_page');
    await saveScreenshot(host, 'meeting-viewer-2026');
    expect(host.errors).toEqual([]);
  }, 180_000);

  it('offers nothing of the viewer to a client that does not declare the extension', async () => {
    const client = await connectModern({});

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('summarize_meeting');
    expect(tools.filter((tool) => tool._meta?.ui !== undefined).map((tool) => tool.name)).toEqual([]);
    expect(tools.map((tool) => tool.name)).not.toContain('meeting_view_page');
    const { resources } = await client.listResources();
    expect(resources.filter((resource) => resource.uri.startsWith('ui://'))).toEqual([]);
    await expect(client.readResource({ uri: VIEW_URI })).rejects.toThrow();
  }, 60_000);
});
