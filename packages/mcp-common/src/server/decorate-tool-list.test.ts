import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { cacheToolList } from './cache-tool-list.js';
import {
  decorateToolList,
  registerWithIcons,
  svgIcon,
  withoutVacuousKeywords,
} from './decorate-tool-list.js';

const INNER = svgIcon("<svg xmlns='http://www.w3.org/2000/svg'><rect width='1' height='1'/></svg>");
const OUTER = svgIcon("<svg xmlns='http://www.w3.org/2000/svg'><circle r='1'/></svg>");

async function listTools(server: McpServer) {
  const client = new Client({ name: 'test', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
  }
}

describe('decorateToolList', () => {
  it('lists each tool with the icons of the innermost registration, and none where none were given', async () => {
    const server = new McpServer({ name: 'decorated', version: '0.0.0' });
    cacheToolList(server);
    decorateToolList(server);
    const handler = async () => ({ content: [] });
    const before = server.registerTool;
    server.registerTool('plain', { description: 'no icons' }, handler);
    registerWithIcons(server, [OUTER], () => {
      // A mounted server registers inside the combined one: its tools keep its own icon.
      registerWithIcons(server, [INNER], () => {
        server.registerTool('inner', { description: 'inner' }, handler);
      });
      server.registerTool('outer', { description: 'outer' }, handler);
    });
    const tools = await listTools(server);
    expect(tools.map((tool) => [tool.name, tool.icons])).toEqual([
      ['plain', undefined],
      ['inner', [INNER]],
      ['outer', [OUTER]],
    ]);
    // registerTool is what it was (here cacheToolList's) once registration is over.
    expect(server.registerTool).toBe(before);
  });

  it('drops the default execution and vacuous keywords, and keeps every real bound', async () => {
    const server = new McpServer({ name: 'decorated', version: '0.0.0' });
    decorateToolList(server);
    server.registerTool(
      'bounded',
      {
        description: 'bounds',
        inputSchema: {
          count: z.number().int().min(1),
          seed: z.number().int(),
          tags: z.record(z.string(), z.string()),
        },
        outputSchema: z.looseObject({ total: z.number().int().max(10) }),
      },
      async () => ({ content: [], structuredContent: { total: 3, extra: true } }),
    );
    const [tool] = await listTools(server);
    expect(tool?.execution).toBeUndefined();
    expect(tool?.inputSchema.properties).toEqual({
      count: { type: 'integer', minimum: 1 },
      seed: { type: 'integer' },
      tags: { type: 'object', additionalProperties: { type: 'string' } },
    });
    expect(tool?.outputSchema).toEqual({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { total: { type: 'integer', maximum: 10 } },
      required: ['total'],
    });
  });

  it('withoutVacuousKeywords keeps properties named like the keywords and non-empty additionalProperties', () => {
    const schema = {
      type: 'object',
      properties: { minimum: { type: 'integer', minimum: -9007199254740991 }, maximum: { type: 'number' } },
      additionalProperties: false,
      propertyNames: { pattern: '^a' },
    };
    expect(withoutVacuousKeywords(schema)).toEqual({
      type: 'object',
      properties: { minimum: { type: 'integer' }, maximum: { type: 'number' } },
      additionalProperties: false,
      propertyNames: { pattern: '^a' },
    });
  });

  it('svgIcon escapes only what a URI cannot carry, and decodes back to the SVG', () => {
    const svg = "<svg xmlns='http://www.w3.org/2000/svg'><path d='M0 0h1' fill='#fff'/></svg>";
    const icon = svgIcon(svg);
    expect(icon.src).not.toMatch(/[<>#\s"]/);
    expect(decodeURIComponent(icon.src.slice('data:image/svg+xml,'.length))).toBe(svg);
    expect(icon.mimeType).toBe('image/svg+xml');
  });
});
