/**
 * Over Streamable HTTP every request (stateless) or session builds a new McpServer: instances of one server
 * with the same tools must hand out one tools/list answer per process, not one each. That holds only if
 * every tool registers schema objects built once per process, so this covers each real server.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { ServerInstance } from '@polymodal/mcp-common';
import { createServer as createMediaServer } from '@polymodal/mcp-media';
import { createServer as createMeetingServer } from '@polymodal/mcp-meeting';
import { createServer as createSpeechServer } from '@polymodal/mcp-speech';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../src/server.js';

let root: string;
let env: Record<string, string>;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'mcp-shared-list-'));
  // tools/list never calls the platform: a closed loopback port is enough.
  env = {
    POLYMODAL_BASE_URL: 'http://127.0.0.1:9',
    POLYMODAL_API_KEY: 'test-key',
    POLYMODAL_STATE_DIR: path.join(root, 'state'),
    POLYMODAL_ALLOWED_DIRS: root,
    POLYMODAL_OUTPUT_DIR: path.join(root, 'out'),
    POLYMODAL_LOG_LEVEL: 'error',
  };
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

/** The very object a new instance hands its transport as the tools/list answer, and the tools' names. */
async function listOnce(create: () => ServerInstance): Promise<{ answer: unknown; names: string[] }> {
  const instance = create();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const results: unknown[] = [];
  const send = serverSide.send.bind(serverSide);
  serverSide.send = (message, options) => {
    if ('result' in message) results.push(message.result);
    return send(message, options);
  };
  await instance.server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  try {
    results.length = 0;
    const { tools } = await client.listTools();
    expect(results).toHaveLength(1);
    return { answer: results[0], names: tools.map((tool) => tool.name) };
  } finally {
    await client.close();
    await instance.cleanup();
  }
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
