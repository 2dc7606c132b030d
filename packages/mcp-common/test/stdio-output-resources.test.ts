/**
 * Saved outputs read over stdio by an MCP SDK client, whose transport drops the connection on any message
 * over 10 MiB: a binary output right at the cap arrives whole (base64, a third bigger), one byte over is
 * refused with a message, and the session goes on (a 7.6 MiB file used to end it for every later request).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_OUTPUT_RESOURCE_BYTES } from '../src/outputs/output-resources.js';
import { serverEnv } from './support/server-harness.js';
import { connectBin } from './support/view-session.js';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../mcp-meeting/dist/index.js');

describe('saved outputs over stdio', () => {
  let root: string;
  let client: Client;

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'stdio-outputs-'));
    await mkdir(path.join(root, 'out'), { recursive: true });
    // Random bytes: base64 of incompressible content, as a video or a WAV would be.
    const bytes = randomBytes(MAX_OUTPUT_RESOURCE_BYTES + 1);
    await writeFile(path.join(root, 'out', 'at-cap.mp4'), bytes.subarray(0, MAX_OUTPUT_RESOURCE_BYTES));
    await writeFile(path.join(root, 'out', 'over-cap.mp4'), bytes);
    // Listing and reading outputs calls nothing: a closed loopback port stands in for the platform.
    client = await connectBin({
      bin: BIN,
      env: serverEnv(root, { url: 'http://127.0.0.1:9', apiKey: 'pm_test_key' }),
      capabilities: {},
    });
  });

  afterAll(async () => {
    await client?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('reads an output at the cap whole, refuses one over it, and keeps the session', async () => {
    const read = await client.readResource({ uri: 'polymodal://outputs/at-cap.mp4' });
    const [content] = read.contents;
    expect(content && 'blob' in content ? Buffer.from(content.blob, 'base64').length : 0).toBe(
      MAX_OUTPUT_RESOURCE_BYTES,
    );
    await expect(client.readResource({ uri: 'polymodal://outputs/over-cap.mp4' })).rejects.toThrow(
      /over-cap\.mp4 is 7340033 bytes, over the 7 MiB limit of resources\/read/,
    );
    // Still connected: the next request is answered.
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.name).sort()).toEqual(['at-cap.mp4', 'over-cap.mp4']);
  }, 60_000);
});
