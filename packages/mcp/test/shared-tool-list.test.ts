/**
 * Over Streamable HTTP every request (stateless) or session builds a new McpServer: instances of one server
 * must hand out the JSON Schemas of their tools (the bulk of a tools/list answer, ~65 KiB) converted once per
 * process, not once each. That holds only if every tool's schema objects are built once per process, so this
 * covers each real server.
 */
import type { ServerInstance } from '@polymodal/mcp-common/host';
import { useServerEnv, withInMemoryClient } from '@polymodal/mcp-common/testing';
import { createServer as createMediaServer } from '@polymodal/mcp-media';
import { createServer as createMeetingServer } from '@polymodal/mcp-meeting';
import { createServer as createSpeechServer } from '@polymodal/mcp-speech';
import { describe, expect, it } from 'vitest';
import { createServer } from '../src/server.js';

// tools/list never calls the platform: a closed loopback port is enough.
const { env } = useServerEnv({ name: 'mcp-shared-list-', sandbox: false });

interface ListedSchemas {
  /** The very input and output schema objects a new instance hands its transport, by tool name. */
  schemas: Map<string, [unknown, unknown]>;
  names: string[];
}

function listOnce(create: () => ServerInstance): Promise<ListedSchemas> {
  return withInMemoryClient(create(), async (client, sent) => {
    sent.length = 0;
    const { tools } = await client.listTools();
    const results = sent.filter((message) => 'result' in message).map((message) => message.result);
    expect(results).toHaveLength(1);
    const answer = results[0] as { tools: { name: string; inputSchema: unknown; outputSchema?: unknown }[] };
    return {
      schemas: new Map(answer.tools.map((tool) => [tool.name, [tool.inputSchema, tool.outputSchema]])),
      names: tools.map((tool) => tool.name),
    };
  });
}

/** Every tool both list has the very same schema objects in both. */
function expectShared(first: ListedSchemas, second: ListedSchemas): void {
  const common = first.names.filter((name) => second.names.includes(name));
  expect(common.length).toBeGreaterThan(1);
  for (const name of common) {
    const [input, output] = first.schemas.get(name) ?? [];
    const [otherInput, otherOutput] = second.schemas.get(name) ?? [];
    expect(otherInput, name).toBe(input);
    expect(otherOutput, name).toBe(output);
  }
}

describe("a tool's JSON Schemas converted once per process", () => {
  const servers: [string, () => ServerInstance][] = [
    ['meeting', () => createMeetingServer({ env })],
    ['media', () => createMediaServer({ env })],
    ['speech', () => createSpeechServer({ env })],
    ['combined', () => createServer({ env })],
  ];

  it.each(servers)('two instances of the %s server list the same schema objects', async (_label, create) => {
    const first = await listOnce(create);
    const second = await listOnce(create);
    expect(second.names).toEqual(first.names);
    expectShared(first, second);
  });

  it('the combined server with other toolsets or read-only lists fewer tools, with the same schemas', async () => {
    const all = await listOnce(() => createServer({ env }));
    const media = await listOnce(() => createServer({ env, toolsets: ['media'] }));
    const readOnly = await listOnce(() => createServer({ env, readOnly: true }));
    expect(media.names.length).toBeLessThan(all.names.length);
    expect(readOnly.names.length).toBeLessThan(all.names.length);
    expectShared(all, media);
    expectShared(all, readOnly);
    // The single servers' tools are the combined server's, schema for schema.
    expectShared(all, await listOnce(() => createMeetingServer({ env })));
  });
});
