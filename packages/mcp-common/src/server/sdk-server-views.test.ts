/**
 * Views (MCP Apps) in the installer: offered only to a client that declares the `io.modelcontextprotocol/ui`
 * extension with the view mime type; every other client gets the answers it got before views existed.
 */
import { EXTENSION_ID, getUiCapability, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { createFileAccess } from '@polymodal/core/files';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type ToolDefinition, type ToolView, toolGroup } from '../tools/define-tool.js';
import type { ToolContext } from '../tools/tool-context.js';
import { createSdkServer, installTools, UI_EXTENSION, VIEW_MIME_TYPE, viewUri } from './sdk-server.js';

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
async function connect(
  capabilities: ClientCapabilities = {},
  listed: readonly ToolDefinition<unknown>[] = tools,
): Promise<Client> {
  const server = createSdkServer({ name: 'test', title: 'Test', version: '1.0.0', instructions: '' });
  server.registerResource('notes', 'test://notes', { mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri: uri.href, text: 'notes' }],
  }));
  installTools(server, {
    server: { name: 'test', version: '1.0.0' },
    groups: [toolGroup({ tools: listed, toolContext: () => ({}) })],
    common: { toolDeadlineSeconds: 42 } as ToolContext,
    keep: () => true,
    metrics: { toolCall: () => {} },
    loadPlatformClient: () => Promise.resolve(),
    files: createFileAccess({ allowedDirs: [], outputDir: '/nonexistent-output' }),
  });
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
      ['plain', undefined],
    ]);
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
      tools.map(({ view: _view, ...tool }) => tool),
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
    }
  });
});
