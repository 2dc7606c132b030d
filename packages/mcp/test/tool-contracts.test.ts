/**
 * The tools' contracts as a host sees them, pinned: every server's full tools/list answer (names, titles,
 * descriptions, input and output JSON Schemas, annotations) compared with a file written from the code
 * before the schemas were built once per process. Any change to a tool's contract fails here, so a refactor
 * of how the schemas are built cannot change what the model is shown.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import type { ServerInstance } from '@polymodal/mcp-common';
import { createServer as createMediaServer } from '@polymodal/mcp-media';
import { createServer as createMeetingServer } from '@polymodal/mcp-meeting';
import { createServer as createSpeechServer } from '@polymodal/mcp-speech';
import { type Sandbox, startSandbox } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../src/server.js';

let sandbox: Sandbox;
let root: string;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox({ speed: 100 });
  root = await mkdtemp(path.join(os.tmpdir(), 'mcp-contracts-'));
  env = {
    POLYMODAL_BASE_URL: sandbox.url,
    POLYMODAL_API_KEY: sandbox.apiKey,
    POLYMODAL_STATE_DIR: path.join(root, 'state'),
    POLYMODAL_ALLOWED_DIRS: root,
    POLYMODAL_OUTPUT_DIR: path.join(root, 'out'),
    POLYMODAL_LOG_LEVEL: 'error',
  };
});

afterAll(async () => {
  await sandbox?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

/** The tools/list answer a client receives from a server built by `create`, as JSON. */
async function toolList(create: () => ServerInstance): Promise<ListToolsResult> {
  const instance = create();
  const client = new Client({ name: 'test', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await instance.server.connect(serverSide);
  await client.connect(clientSide);
  try {
    return JSON.parse(JSON.stringify(await client.listTools())) as ListToolsResult;
  } finally {
    await client.close();
    await instance.cleanup();
  }
}

// .txt, not .json: the files are vitest's byte-exact snapshots, kept out of the formatter's reach.
const snapshot = (name: string) => path.join(import.meta.dirname, '__contracts__', `${name}.tools.txt`);
const asFile = (answer: ListToolsResult) => `${JSON.stringify(answer, null, 2)}\n`;

describe('tool contracts', () => {
  it('the meeting server lists the same tools as before', async () => {
    const answer = await toolList(() => createMeetingServer({ env }));
    await expect(asFile(answer)).toMatchFileSnapshot(snapshot('meeting'));
  });

  it('the media server lists the same tools as before', async () => {
    const answer = await toolList(() => createMediaServer({ env }));
    await expect(asFile(answer)).toMatchFileSnapshot(snapshot('media'));
  });

  it('the speech server lists the same tools as before', async () => {
    const answer = await toolList(() => createSpeechServer({ env }));
    await expect(asFile(answer)).toMatchFileSnapshot(snapshot('speech'));
  });

  it('the combined server lists the same tools as before, all toolsets and read-only', async () => {
    const all = await toolList(() => createServer({ env }));
    await expect(asFile(all)).toMatchFileSnapshot(snapshot('combined'));
    const readOnly = await toolList(() => createServer({ env, readOnly: true }));
    await expect(asFile(readOnly)).toMatchFileSnapshot(snapshot('combined-read-only'));
  });
});
