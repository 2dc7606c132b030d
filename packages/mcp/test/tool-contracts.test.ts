/**
 * The tools' contracts as a host calls them, pinned: every server's tools/list answer compared with the
 * files written from the code before the descriptions were shortened (issue 14). The files are the record
 * of "before" and stay unchanged. What must not change is what a caller relies on: each tool's name and
 * title, its annotations and execution, and its input schema in full (property names, JSON types, enums,
 * defaults, bounds, required arguments) except the description texts and what says nothing (zod's ±(2^53 - 1)
 * integer bounds, `propertyNames: {type: string}`, `additionalProperties: {}`: dropped from the list; the
 * server's zod still checks every call). Descriptions, output schemas and
 * icons may change: they were made shorter and shared, which is the point.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ListToolsResult } from '@modelcontextprotocol/server';
import { type ServerInstance, withoutVacuousKeywords } from '@polymodal/mcp-common/host';
import { useServerEnv, withInMemoryClient } from '@polymodal/mcp-common/testing';
import { createServer as createMediaServer } from '@polymodal/mcp-media';
import { createServer as createMeetingServer } from '@polymodal/mcp-meeting';
import { createServer as createSpeechServer } from '@polymodal/mcp-speech';
import { describe, expect, it } from 'vitest';
import { createServer } from '../src/server.js';

const { env } = useServerEnv({ name: 'mcp-contracts-', sandbox: true });

/** The tools/list answer a client receives from a server built by `create`, as JSON. */
function toolList(create: () => ServerInstance): Promise<ListToolsResult> {
  return withInMemoryClient(
    create(),
    async (client) => JSON.parse(JSON.stringify(await client.listTools())) as ListToolsResult,
  );
}

// .txt, not .json: the files are the tools/list answers pinned before, kept out of the formatter's reach.
async function before(name: string): Promise<ListToolsResult> {
  const file = path.join(import.meta.dirname, '__contracts__', `${name}.tools.txt`);
  return JSON.parse(await readFile(file, 'utf8')) as ListToolsResult;
}

/**
 * A JSON Schema without its `description` keywords. A property *named* "description" is kept: only the
 * keyword is dropped, never an entry of `properties`.
 */
function withoutDescriptions(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutDescriptions);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => key !== 'description')
      .map(([key, value]) => [
        key,
        key === 'properties' && typeof value === 'object' && value !== null
          ? Object.fromEntries(
              Object.entries(value).map(([name, property]) => [name, withoutDescriptions(property)]),
            )
          : withoutDescriptions(value),
      ]),
  );
}

/** What a caller relies on, tool by tool, in the server's order. */
function callerContract(answer: ListToolsResult) {
  return answer.tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    annotations: tool.annotations,
    // Absent means the protocol's default, "forbidden", which the list no longer repeats on every tool.
    execution: tool.execution ?? { taskSupport: 'forbidden' },
    inputSchema: withoutDescriptions(withoutVacuousKeywords(tool.inputSchema)),
  }));
}

describe('tool contracts', () => {
  it('strips description keywords only, never a property named "description"', () => {
    const schema = {
      type: 'object',
      description: 'gone',
      properties: { description: { type: 'string', description: 'gone too' } },
      required: ['description'],
    };
    expect(withoutDescriptions(schema)).toEqual({
      type: 'object',
      properties: { description: { type: 'string' } },
      required: ['description'],
    });
  });

  it('the meeting server lists the same tools as before', async () => {
    const answer = await toolList(() => createMeetingServer({ env }));
    expect(callerContract(answer)).toEqual(callerContract(await before('meeting')));
  });

  it('the media server lists the same tools as before', async () => {
    const answer = await toolList(() => createMediaServer({ env }));
    expect(callerContract(answer)).toEqual(callerContract(await before('media')));
  });

  it('the speech server lists the same tools as before', async () => {
    const answer = await toolList(() => createSpeechServer({ env }));
    expect(callerContract(answer)).toEqual(callerContract(await before('speech')));
  });

  it('the combined server lists the same tools as before, all toolsets and read-only', async () => {
    const all = await toolList(() => createServer({ env }));
    expect(callerContract(all)).toEqual(callerContract(await before('combined')));
    const readOnly = await toolList(() => createServer({ env, readOnly: true }));
    expect(callerContract(readOnly)).toEqual(callerContract(await before('combined-read-only')));
  });

  it('every tool still has a description, and the pinned files are the longer "before"', async () => {
    for (const name of ['meeting', 'media', 'speech'] as const) {
      const create = { meeting: createMeetingServer, media: createMediaServer, speech: createSpeechServer }[
        name
      ];
      const answer = await toolList(() => create({ env }));
      const pinned = await before(name);
      for (const tool of answer.tools) expect(tool.description?.length, tool.name).toBeGreaterThan(40);
      const bytes = (list: ListToolsResult) =>
        JSON.stringify(list.tools.map((tool) => tool.description)).length;
      expect(bytes(answer)).toBeLessThan(bytes(pinned));
    }
  });
});
