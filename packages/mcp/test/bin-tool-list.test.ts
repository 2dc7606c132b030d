/**
 * Each bin answers tools/list from the answer its build wrote (dist/tool-list.json) when its tools match it.
 * What a host receives must be the very list the same server gives in process, where no such file exists and
 * the SDK converts every schema: for each bin, and for the combined one with fewer toolsets and read-only
 * (where its `list_jobs` is described otherwise, so the file is not used).
 */
import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ListToolsResult } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { ServerInstance } from '@polymodal/mcp-common/host';
import { useServerEnv, withInMemoryClient } from '@polymodal/mcp-common/testing';
import { createServer as createMediaServer } from '@polymodal/mcp-media';
import { createServer as createMeetingServer } from '@polymodal/mcp-meeting';
import { createServer as createSpeechServer } from '@polymodal/mcp-speech';
import { describe, expect, it } from 'vitest';
import { createServer } from '../src/server.js';

const PACKAGES = path.resolve(import.meta.dirname, '..', '..');

const { env } = useServerEnv({ name: 'mcp-bin-tool-list-', sandbox: false });

async function binList(folder: string, args: string[] = []): Promise<ListToolsResult> {
  const bin = path.join(PACKAGES, folder, 'dist', 'index.js');
  await access(bin);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, ...args],
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bin-tool-list', version: '1.0.0' });
  await client.connect(transport);
  try {
    return JSON.parse(JSON.stringify(await client.listTools())) as ListToolsResult;
  } finally {
    await client.close();
  }
}

function inProcessList(instance: ServerInstance): Promise<ListToolsResult> {
  return withInMemoryClient(
    instance,
    async (client) => JSON.parse(JSON.stringify(await client.listTools())) as ListToolsResult,
  );
}

describe('a bin lists its tools from the list written at build time', () => {
  it.each([
    ['mcp-meeting', () => createMeetingServer({ env })],
    ['mcp-media', () => createMediaServer({ env })],
    ['mcp-speech', () => createSpeechServer({ env })],
    ['mcp', () => createServer({ env })],
  ])(
    '%s: the file is its own, and the bin lists exactly what the server lists in process',
    async (folder, create) => {
      const written = JSON.parse(
        await readFile(path.join(PACKAGES, folder, 'dist', 'tool-list.json'), 'utf8'),
      );
      const { version } = JSON.parse(await readFile(path.join(PACKAGES, folder, 'package.json'), 'utf8'));
      expect(written.server.version).toBe(version);
      const fromBin = await binList(folder);
      expect(fromBin.tools).toEqual(written.tools);
      expect(fromBin).toEqual(await inProcessList(create()));
    },
  );

  it('the combined bin with one toolset, read-only, lists what the same server lists in process', async () => {
    const fromBin = await binList('mcp', ['--toolsets', 'speech', '--read-only']);
    const inProcess = await inProcessList(createServer({ env, toolsets: ['speech'], readOnly: true }));
    expect(fromBin.tools.map((tool) => tool.name)).toContain('list_jobs');
    expect(fromBin).toEqual(inProcess);
  });
});
