/**
 * Over Streamable HTTP every request (stateless) or session builds a new McpServer: instances of one server
 * with the same tools must hand out one tools/list answer per process, not one each. That holds only if
 * every tool registers schema objects built once per process, so this covers each real server.
 */
import type { ServerInstance } from '@polymodal/mcp-common';
import { createServer as createMediaServer } from '@polymodal/mcp-media';
import { createServer as createMeetingServer } from '@polymodal/mcp-meeting';
import { createServer as createSpeechServer } from '@polymodal/mcp-speech';
import { describe, expect, it } from 'vitest';
import { useServerEnv, withInMemoryClient } from '../../mcp-common/test/support/server-harness.js';
import { createServer } from '../src/server.js';

// tools/list never calls the platform: a closed loopback port is enough.
const { env } = useServerEnv({ name: 'mcp-shared-list-', sandbox: false });

/** The very object a new instance hands its transport as the tools/list answer, and the tools' names. */
function listOnce(create: () => ServerInstance): Promise<{ answer: unknown; names: string[] }> {
  return withInMemoryClient(create(), async (client, sent) => {
    sent.length = 0;
    const { tools } = await client.listTools();
    const results = sent.filter((message) => 'result' in message).map((message) => message.result);
    expect(results).toHaveLength(1);
    return { answer: results[0], names: tools.map((tool) => tool.name) };
  });
}

describe('one tools/list answer per process', () => {
  const servers: [string, () => ServerInstance][] = [
    ['meeting', () => createMeetingServer({ env })],
    ['media', () => createMediaServer({ env })],
    ['speech', () => createSpeechServer({ env })],
    ['combined', () => createServer({ env })],
  ];

  it.each(servers)('two instances of the %s server share it', async (_label, create) => {
    const first = await listOnce(create);
    const second = await listOnce(create);
    expect(first.names.length).toBeGreaterThan(1);
    expect(second.answer).toBe(first.answer);
  });

  it('the combined server with other toolsets or read-only answers with a list of its own', async () => {
    const all = await listOnce(() => createServer({ env }));
    const media = await listOnce(() => createServer({ env, toolsets: ['media'] }));
    const readOnly = await listOnce(() => createServer({ env, readOnly: true }));
    expect(media.answer).not.toBe(all.answer);
    expect(readOnly.answer).not.toBe(all.answer);
    expect(media.names.length).toBeLessThan(all.names.length);
    expect(readOnly.names.length).toBeLessThan(all.names.length);
    // And each of those is shared in turn by the next instance alike.
    expect((await listOnce(() => createServer({ env, toolsets: ['media'] }))).answer).toBe(media.answer);
    expect((await listOnce(() => createServer({ env, readOnly: true }))).answer).toBe(readOnly.answer);
  });
});
