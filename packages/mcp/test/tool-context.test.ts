/**
 * What every server puts into a host's context (issue 14) and how hosts show it (issue 15, icons): the
 * model-visible bytes per tool (name + description + input schema, as the bench counts them) stay within
 * the targets, the whole tools/list within its budget with the icons counted, and each server
 * answers initialize with its icon and lists it on each of its tools (in the combined server, a tool keeps
 * the icon of the server it comes from).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Implementation, ListToolsResult } from '@modelcontextprotocol/server';
import type { ServerInstance } from '@polymodal/mcp-common/host';
import { useServerEnv, withInMemoryClient } from '@polymodal/mcp-common/testing';
import { createServer as createMediaServer } from '@polymodal/mcp-media';
import { createServer as createMeetingServer } from '@polymodal/mcp-meeting';
import { createServer as createSpeechServer } from '@polymodal/mcp-speech';
import { describe, expect, it } from 'vitest';
import { createServer } from '../src/server.js';

/** The targets (the same as the bench's). */
const AVERAGE_TOOL_BYTES = 650;
const MAXIMUM_TOOL_BYTES = 1200;
const LIST_BYTES_PER_TOOL = 1500;

// Listing tools never calls the platform: a closed loopback port proves it.
const { env } = useServerEnv({ name: 'mcp-tool-context-', sandbox: false });

interface Listing {
  serverInfo: Implementation;
  /** The raw tools/list result, as the server sent it. */
  list: ListToolsResult;
}

function listing(create: () => ServerInstance): Promise<Listing> {
  return withInMemoryClient(create(), async (client, sent) => {
    const { tools } = await client.listTools();
    const raw = sent.find((message) => 'result' in message && 'tools' in message.result);
    if (!raw || !('result' in raw)) throw new Error('no tools/list answer seen');
    const serverInfo = client.getServerVersion();
    if (!serverInfo) throw new Error('no serverInfo');
    expect((raw.result as ListToolsResult).tools.map((tool) => tool.name)).toEqual(
      tools.map((tool) => tool.name),
    );
    return { serverInfo, list: raw.result as ListToolsResult };
  });
}

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const modelVisible = (tool: ListToolsResult['tools'][number]) =>
  bytes(tool.name) + bytes(tool.description ?? '') + bytes(JSON.stringify(tool.inputSchema));

const SERVERS = [
  { label: 'meeting', folder: 'mcp-meeting', create: () => createMeetingServer({ env }) },
  { label: 'media', folder: 'mcp-media', create: () => createMediaServer({ env }) },
  { label: 'speech', folder: 'mcp-speech', create: () => createSpeechServer({ env }) },
  { label: 'combined', folder: 'mcp', create: () => createServer({ env }) },
] as const;

describe('tool context', () => {
  for (const server of SERVERS) {
    it(`the ${server.label} server stays within the issue's context budget, icons counted`, async () => {
      const { list } = await listing(server.create);
      const visible = list.tools.map(modelVisible);
      const over = list.tools
        .filter((tool) => modelVisible(tool) > MAXIMUM_TOOL_BYTES)
        .map((tool) => tool.name);
      expect(over).toEqual([]);
      expect(visible.reduce((sum, value) => sum + value, 0) / visible.length).toBeLessThanOrEqual(
        AVERAGE_TOOL_BYTES,
      );
      expect(bytes(JSON.stringify(list)) / list.tools.length).toBeLessThanOrEqual(LIST_BYTES_PER_TOOL);
      // Every tool still says what it does, and every long-job tool what to call when it is not done.
      for (const tool of list.tools) expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(40);
    });

    it(`the ${server.label} server answers initialize with its icon and lists it on its tools`, async () => {
      const { serverInfo, list } = await listing(server.create);
      const [icon] = serverInfo.icons ?? [];
      expect(icon?.mimeType).toBe('image/svg+xml');
      expect(icon?.src.startsWith('data:image/svg+xml,')).toBe(true);
      // Self-contained and small: it is repeated on every tool.
      expect(bytes(icon?.src ?? '')).toBeLessThan(300);
      // The same SVG as the package's icon.svg (server.json points at that file), which also has a <title>
      // for accessibility; the inline copy leaves it out, since it is repeated on every tool and the host
      // shows the server's or tool's name beside it.
      const svg = decodeURIComponent((icon?.src ?? '').slice('data:image/svg+xml,'.length));
      const file = await readFile(
        path.join(import.meta.dirname, '..', '..', server.folder, 'icon.svg'),
        'utf8',
      );
      expect(file).toMatch(/<title>Polymodal[^<]*<\/title>/);
      expect(svg).toBe(file.trim().replace(/<title>[^<]*<\/title>/, ''));
      expect(svg).toMatch(/^<svg xmlns='http:\/\/www\.w3\.org\/2000\/svg'[^>]*>.*<\/svg>$/);
      // The registry entry (server.json) points at that file: the registry takes only https icons (max 255
      // characters), so the repository serves it.
      const entry = JSON.parse(
        await readFile(path.join(import.meta.dirname, '..', '..', server.folder, 'server.json'), 'utf8'),
      ) as { icons?: { src: string; mimeType?: string; sizes?: string[] }[] };
      expect(entry.icons).toEqual([
        {
          src: `https://raw.githubusercontent.com/polymodal/polymodal-mcp/main/packages/${server.folder}/icon.svg`,
          mimeType: 'image/svg+xml',
          sizes: ['any'],
        },
      ]);
      expect(entry.icons?.[0]?.src.length).toBeLessThanOrEqual(255);
      if (server.label !== 'combined') {
        for (const tool of list.tools) expect(tool.icons, tool.name).toEqual([icon]);
      }
    });
  }

  it('in the combined server each tool keeps its own server icon, and list_jobs has the combined one', async () => {
    const icons = new Map<string, unknown>();
    for (const server of SERVERS) {
      const { serverInfo, list } = await listing(server.create);
      if (server.label === 'combined') {
        for (const tool of list.tools) {
          const expected = tool.name === 'list_jobs' ? serverInfo.icons : icons.get(tool.name);
          expect(tool.icons, tool.name).toEqual(expected);
        }
        // Four servers, four different icons.
        expect(
          new Set([...icons.values(), serverInfo.icons].map((value) => JSON.stringify(value))).size,
        ).toBe(4);
      } else {
        for (const tool of list.tools) if (tool.name !== 'list_jobs') icons.set(tool.name, serverInfo.icons);
      }
    }
  });
});
