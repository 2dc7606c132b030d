/**
 * Views (MCP Apps) in the installer: offered only to a client that declares the `io.modelcontextprotocol/ui`
 * extension with the view mime type; every other client gets the answers it got before views existed.
 */

import type { ClientCapabilities } from '@modelcontextprotocol/client';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { EXTENSION_ID, getUiCapability, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { createFileAccess } from '@polymodal/core/files';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type Tool, type ToolView, toolGroup } from '../tools/define-tool.js';
import type { ToolDeps } from '../tools/tool-deps.js';
import type { ViewsPolicy } from '../views/views-policy.js';
import { createSdkServer, installTools, UI_EXTENSION, VIEW_MIME_TYPE, viewUri } from './sdk-server.js';

/**
 * What a server answers requests that come without an `initialize` (as stateless HTTP serves each request
 * on a server of its own): the JSON-RPC results, in order.
 */
async function answersWithoutInitialize(
  views: ViewsPolicy,
  requests: { method: string; params?: Record<string, unknown> }[],
): Promise<unknown[]> {
  const server = serverWith(tools, views);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const answers = new Map<number, unknown>();
  clientSide.onmessage = (message) => {
    if ('id' in message && typeof message.id === 'number')
      answers.set(message.id, 'result' in message ? message.result : message);
  };
  await server.connect(serverSide);
  await clientSide.start();
  for (const [index, request] of requests.entries()) {
    await clientSide.send({ jsonrpc: '2.0', id: index + 1, ...request });
  }
  await expect.poll(() => answers.size).toBe(requests.length);
  await server.close();
  return requests.map((_, index) => answers.get(index + 1));
}

const HTML = '<!doctype html><title>Player</title><p>player</p>';
const PLAYER: ToolView = {
  name: 'player',
  title: 'Player',
  description: 'Plays.',
  html: () => Promise.resolve(HTML),
};

const tools = [
  defineTool({
    name: 'speak',
    title: 'Speak',
    description: 'Speaks.',
    inputSchema: { text: z.string() },
    annotations: { readOnlyHint: false },
    view: PLAYER,
    handler: () => async (args) => ({
      content: [{ type: 'text', text: `spoke ${args.text}` }],
      structuredContent: { done: true },
    }),
  }),
  defineTool({
    name: 'get_spoken',
    title: 'Get spoken',
    description: 'Gets.',
    inputSchema: { id: z.string() },
    annotations: { readOnlyHint: true },
    view: PLAYER,
    handler: () => async () => ({ content: [{ type: 'text', text: 'got' }] }),
  }),
  defineTool({
    name: 'spoken_page',
    title: 'Spoken page',
    description: 'A page the player shows.',
    inputSchema: { page: z.number() },
    annotations: { readOnlyHint: true },
    appOnly: true,
    handler: () => async (args) => ({ content: [{ type: 'text', text: `page ${args.page}` }] }),
  }),
  defineTool({
    name: 'plain',
    title: 'Plain',
    description: 'No view.',
    inputSchema: {},
    annotations: { readOnlyHint: true },
    handler: () => async () => ({ content: [{ type: 'text', text: 'plain' }] }),
  }),
];

const DECLARES_VIEWS = {
  extensions: { [UI_EXTENSION]: { mimeTypes: [VIEW_MIME_TYPE] } },
} as ClientCapabilities;

/** A server with the tools, and a resource of its own as every Polymodal server has (its outputs). */
function serverWith(listed: readonly Tool<unknown>[], views?: ViewsPolicy) {
  const server = createSdkServer({ name: 'test', title: 'Test', version: '1.0.0', instructions: '' });
  server.registerResource('notes', 'test://notes', { mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri: uri.href, text: 'notes' }],
  }));
  installTools(server, {
    server: { name: 'test', version: '1.0.0' },
    groups: [toolGroup({ tools: listed, deps: () => ({}) })],
    common: { toolDeadlineSeconds: 42 } as ToolDeps,
    keep: () => true,
    metrics: { toolCall: () => {} },
    loadPlatformClient: () => Promise.resolve(),
    files: createFileAccess({ allowedDirs: [], outputDir: '/nonexistent-output' }),
    log: { warning: () => undefined },
    views,
  });
  return server;
}

async function connect(
  capabilities: ClientCapabilities = {},
  listed: readonly Tool<unknown>[] = tools,
  views?: ViewsPolicy,
): Promise<Client> {
  const server = serverWith(listed, views);
  const client = new Client({ name: 'host', version: '1.0.0' }, { capabilities });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return client;
}

describe('views in the installer', () => {
  it("names the extension and mime type as ext-apps 1.7's own server helpers do", () => {
    expect(UI_EXTENSION).toBe(EXTENSION_ID);
    expect(VIEW_MIME_TYPE).toBe(RESOURCE_MIME_TYPE);
    expect(getUiCapability(DECLARES_VIEWS)).toEqual({ mimeTypes: [RESOURCE_MIME_TYPE] });
  });

  it('lists and serves a view to a client that declares the extension', async () => {
    const client = await connect(DECLARES_VIEWS);
    const { tools: listed } = await client.listTools();
    const uri = viewUri(PLAYER);
    expect(uri).toBe('ui://polymodal/player.html');
    expect(listed.map((tool) => [tool.name, tool._meta])).toEqual([
      ['speak', { ui: { resourceUri: uri } }],
      ['get_spoken', { ui: { resourceUri: uri } }],
      ['spoken_page', { ui: { visibility: ['app'] } }],
      ['plain', undefined],
    ]);
    // The app-only tool answers the view (the host keeps it from the model).
    expect(await client.callTool({ name: 'spoken_page', arguments: { page: 2 } })).toEqual({
      content: [{ type: 'text', text: 'page 2' }],
    });
    const { resources } = await client.listResources();
    expect(resources.filter((resource) => resource.uri.startsWith('ui://'))).toEqual([
      { uri, name: 'view-player', title: 'Player', description: 'Plays.', mimeType: VIEW_MIME_TYPE },
    ]);
    const read = await client.readResource({ uri });
    expect(read.contents).toEqual([{ uri, mimeType: VIEW_MIME_TYPE, text: HTML }]);
  });

  it('gives a client without the extension exactly the answers of a server without views', async () => {
    const reference = await connect(
      {},
      tools.filter((tool) => !tool.appOnly).map(({ view: _view, ...tool }) => tool),
    );
    // No extension, and the extension declared without the view mime type.
    for (const capabilities of [{}, { extensions: { [UI_EXTENSION]: { mimeTypes: ['text/plain'] } } }]) {
      const client = await connect(capabilities as ClientCapabilities);
      expect(await client.listTools()).toEqual(await reference.listTools());
      expect(JSON.stringify(await client.listTools())).not.toContain('ui://');
      expect(await client.listResources()).toEqual(await reference.listResources());
      expect(await client.callTool({ name: 'speak', arguments: { text: 'hi' } })).toEqual(
        await reference.callTool({ name: 'speak', arguments: { text: 'hi' } }),
      );
      // Not served (the SDK says the resource is disabled; a server without views says not found).
      await expect(client.readResource({ uri: viewUri(PLAYER) })).rejects.toThrow(/disabled|not found/i);
      // The app-only tool is neither listed (above) nor callable.
      const called = await client.callTool({ name: 'spoken_page', arguments: { page: 1 } });
      expect(called.isError).toBe(true);
      expect(JSON.stringify(called.content)).toMatch(/spoken_page/);
      expect(JSON.stringify(called.content)).not.toContain('page 1');
    }
  });

  it('offers no view where the client is unknown (stateless HTTP) unless POLYMODAL_VIEWS=on', async () => {
    const requests = [
      { method: 'tools/list' },
      { method: 'resources/read', params: { uri: viewUri(PLAYER) } },
      { method: 'tools/call', params: { name: 'spoken_page', arguments: { page: 3 } } },
    ];
    const [autoList, autoRead, autoCall] = (await answersWithoutInitialize('auto', requests)) as [
      { tools: { name: string; _meta?: unknown }[] },
      { error?: unknown },
      { isError?: boolean; content: unknown },
    ];
    expect(autoList.tools.map((tool) => tool.name)).toEqual(['speak', 'get_spoken', 'plain']);
    expect(JSON.stringify(autoList)).not.toContain('ui://');
    expect(autoRead.error).toBeDefined();
    expect(autoCall.isError).toBe(true);

    const [onList, onRead, onCall] = (await answersWithoutInitialize('on', requests)) as [
      { tools: { name: string; _meta?: unknown }[] },
      { contents: unknown[] },
      { content: unknown },
    ];
    expect(onList.tools.map((tool) => [tool.name, tool._meta])).toEqual([
      ['speak', { ui: { resourceUri: viewUri(PLAYER) } }],
      ['get_spoken', { ui: { resourceUri: viewUri(PLAYER) } }],
      ['spoken_page', { ui: { visibility: ['app'] } }],
      ['plain', undefined],
    ]);
    expect(onRead.contents).toEqual([{ uri: viewUri(PLAYER), mimeType: VIEW_MIME_TYPE, text: HTML }]);
    expect(onCall.content).toEqual([{ type: 'text', text: 'page 3' }]);
  });

  it('under POLYMODAL_VIEWS=on still gives a client that declared no extension the plain answers', async () => {
    const reference = await connect(
      {},
      tools.filter((tool) => !tool.appOnly).map(({ view: _view, ...tool }) => tool),
    );
    const client = await connect({}, tools, 'on');
    expect(await client.listTools()).toEqual(await reference.listTools());
    await expect(client.readResource({ uri: viewUri(PLAYER) })).rejects.toThrow(/disabled|not found/i);
  });

  it('under POLYMODAL_VIEWS=off offers nothing of the views, even to a client that renders them', async () => {
    const client = await connect(DECLARES_VIEWS, tools, 'off');
    const { tools: listed } = await client.listTools();
    expect(listed.map((tool) => tool.name)).toEqual(['speak', 'get_spoken', 'plain']);
    expect(JSON.stringify(listed)).not.toMatch(/"ui"|ui:\/\//);
    await expect(client.readResource({ uri: viewUri(PLAYER) })).rejects.toThrow(/not found/i);
    expect((await client.callTool({ name: 'spoken_page', arguments: { page: 1 } })).isError).toBe(true);
  });
});
