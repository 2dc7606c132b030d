import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { testTools } from '../../test/support/test-tools.js';
import { defineTool } from '../tools/define-tool.js';
import { createPolymodalServer } from './create-polymodal-server.js';
import { type PrecomputedToolList, readPrecomputedToolList } from './precomputed-tool-list.js';

let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'precomputed-tool-list-'));
  env = {
    POLYMODAL_BASE_URL: 'http://127.0.0.1:9',
    POLYMODAL_API_KEY: 'test-key',
    POLYMODAL_STATE_DIR: path.join(dir, 'state'),
    POLYMODAL_ALLOWED_DIRS: dir,
  };
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const echo = (description: string) =>
  testTools(
    defineTool({
      name: 'echo',
      title: 'Echo',
      description,
      inputSchema: { text: z.string() },
      annotations: { readOnlyHint: true },
      handler:
        () =>
        async ({ text }) => ({ content: [{ type: 'text', text }] }),
    }),
  );

/** A file as the build writes it, whose `echo` schema says so (the SDK's own would not). */
async function writtenList(version: string): Promise<() => PrecomputedToolList | undefined> {
  const file = path.join(dir, `tool-list-${version}.json`);
  const list: PrecomputedToolList = {
    server: { name: 'sample', version },
    tools: [
      {
        name: 'echo',
        title: 'Echo',
        description: 'Says it back.',
        inputSchema: { type: 'object', description: 'from the file' },
        annotations: { title: 'Echo', readOnlyHint: true },
      },
    ],
  };
  await writeFile(file, JSON.stringify(list));
  return readPrecomputedToolList(pathToFileURL(file));
}

async function listed(options: { version: string; description: string; toolList?: () => unknown }) {
  const instance = createPolymodalServer({
    name: 'sample',
    title: 'Sample',
    version: options.version,
    instructions: '',
    deps: { env, ...(options.toolList ? { toolList: options.toolList as () => PrecomputedToolList } : {}) },
    groups: [echo(options.description)],
  });
  const client = new Client({ name: 'test', version: '1' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await instance.server.connect(serverSide);
  await client.connect(clientSide);
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
    await instance.cleanup();
  }
}

describe('the tools/list answer written at build time', () => {
  it('is served when the server and its tools are the ones it was written for', async () => {
    const tools = await listed({
      version: '1.0.0',
      description: 'Says it back.',
      toolList: await writtenList('1.0.0'),
    });
    expect(tools.map((tool) => tool.inputSchema)).toEqual([{ type: 'object', description: 'from the file' }]);
  });

  it('is not served for another version, a tool described otherwise, or a file that is missing', async () => {
    const sdk = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
    for (const options of [
      { version: '1.0.1', description: 'Says it back.', toolList: await writtenList('1.0.0') },
      { version: '1.0.0', description: 'Says it back, louder.', toolList: await writtenList('1.0.0') },
      {
        version: '1.0.0',
        description: 'Says it back.',
        toolList: readPrecomputedToolList(pathToFileURL(path.join(dir, 'missing.json'))),
      },
    ]) {
      const [tool] = await listed(options);
      expect(tool?.inputSchema).toMatchObject(sdk);
    }
  });
});
