/**
 * MCP roots with the real SDK client: over HTTP the server asks for roots within a tool call (2025-11-25:
 * a request on the session; 2026-07-28: the call's own multi-round-trip question), and
 * a file inside a client's root becomes readable for that client's calls only, never for another session
 * on the same shared context; over a connection whose server owns its context (stdio's case) roots are
 * read at initialize and on list_changed, as before.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type Sandbox, startSandbox } from '@polymodal/sandbox';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type HttpServerHandle, runHttpServer } from '../src/runners/run-http-server.js';
import type { ServerFactory } from '../src/runners/server-instance.js';
import { createPolymodalServer } from '../src/server/create-polymodal-server.js';
import { createTenantAccess, type TenantAccess } from '../src/tenants/create-tenant-access.js';
import { defineTool } from '../src/tools/define-tool.js';
import type { ToolDeps } from '../src/tools/tool-deps.js';
import { clientOf } from './support/raw-http.js';
import { GENERATIONS, type ProtocolGeneration } from './support/server-harness.js';
import { testTools } from './support/test-tools.js';

/** A tool that reads a file the way the servers' tools do: roots first, then the context's file access. */
const createFileServer: ServerFactory = (request) =>
  createPolymodalServer({
    name: 'files',
    title: 'Files',
    version: '1.0.0',
    instructions: 'Reads files.',
    deps: { platform: request?.platform, env: fileEnv },
    groups: [
      testTools(
        defineTool({
          name: 'file_size',
          title: 'File size',
          description: 'Size of a readable file.',
          inputSchema: { path: z.string() },
          annotations: {},
          handler:
            (tools: ToolDeps) =>
            async ({ path: file }) => {
              await tools.roots.ready();
              try {
                const opened = await tools.platform.files.openReadable(file);
                const size = (await opened.handle.stat()).size;
                await opened.handle.close();
                return { content: [{ type: 'text', text: `${size} bytes` }] };
              } catch (error) {
                return { isError: true, content: [{ type: 'text', text: (error as Error).message }] };
              }
            },
        }),
      ),
    ],
  });

let fileEnv: NodeJS.ProcessEnv = {};

function rootsClient(
  name: string,
  roots: () => { uri: string }[],
  generation: ProtocolGeneration = '2025-11-25',
): Client {
  const client = clientOf(generation, name, { roots: { listChanged: true } });
  client.setRequestHandler('roots/list', async () => ({ roots: roots() }));
  return client;
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { type: string; text: string }[])[0]?.text ?? '';

describe('MCP roots', () => {
  let sandbox: Sandbox;
  let root: string;
  let recording: string;
  let access: TenantAccess | undefined;
  let handle: HttpServerHandle | undefined;

  beforeAll(async () => {
    sandbox = await startSandbox({ speed: 100 });
  });
  afterAll(async () => {
    await sandbox?.close();
  });
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'mcp-roots-'));
    await mkdir(path.join(root, 'client-a'));
    recording = path.join(root, 'client-a', 'meeting.wav');
    await writeFile(recording, 'twelve bytes');
    // No POLYMODAL_ALLOWED_DIRS: nothing is readable unless a client's roots grant it.
    fileEnv = {
      POLYMODAL_API_KEY: sandbox.apiKey,
      POLYMODAL_BASE_URL: sandbox.url,
      POLYMODAL_STATE_DIR: path.join(root, 'state'),
      POLYMODAL_LOG_LEVEL: 'error',
    };
  });
  afterEach(async () => {
    await handle?.close();
    await access?.close();
    handle = undefined;
    access = undefined;
    await rm(root, { recursive: true, force: true });
  });

  it.each(GENERATIONS)(
    "over HTTP with sessions, a %s client's root is readable in its own next call, and never in another client's",
    async (generation) => {
      access = await createTenantAccess({ env: fileEnv, name: 'files' });
      handle = await runHttpServer(createFileServer, { port: 0, access, sessions: true });
      let rootsOfA = [{ uri: pathToFileURL(path.join(root, 'client-a')).href }];
      const clientA = rootsClient('a', () => rootsOfA, generation);
      const clientB = rootsClient('b', () => [], generation);
      const clientC = clientOf(generation, 'c');
      for (const client of [clientA, clientB, clientC]) {
        await client.connect(new StreamableHTTPClientTransport(new URL(handle.url)));
      }

      const readByA = await clientA.callTool({ name: 'file_size', arguments: { path: recording } });
      expect(readByA.isError).toBeFalsy();
      expect(textOf(readByA)).toBe('12 bytes');

      // The same tenant context, another session: A's root grants it nothing.
      for (const other of [clientB, clientC]) {
        const refused = await other.callTool({ name: 'file_size', arguments: { path: recording } });
        expect(refused.isError).toBe(true);
        expect(textOf(refused)).toMatch(/not readable: no directories are allowed/);
      }
      // Nor is the shared context widened outside any call.
      await expect(access.probeContext()?.files.resolveReadable(recording)).rejects.toThrow(/not readable/);

      // A's roots change: its next call asks again and the file is no longer readable.
      rootsOfA = [];
      const readAgain = async () =>
        (await clientA.callTool({ name: 'file_size', arguments: { path: recording } })).isError;
      if (generation === '2025-11-25') {
        await clientA.sendRootsListChanged();
        await expect.poll(readAgain).toBe(true);
      } else {
        // 2026-07-28 has no list_changed: every call asks for the roots of its own request.
        expect(await readAgain()).toBe(true);
      }
      for (const client of [clientA, clientB, clientC]) await client.close();
    },
  );

  it('with a server that owns its context (stdio), reads roots at initialize and on list_changed', async () => {
    let roots = [{ uri: pathToFileURL(path.join(root, 'client-a')).href }];
    const client = rootsClient('stdio-like', () => roots);
    const instance = await createFileServer();
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await instance.server.connect(serverTransport);
    await client.connect(clientTransport);
    const read = await client.callTool({ name: 'file_size', arguments: { path: recording } });
    expect(textOf(read)).toBe('12 bytes');

    roots = [];
    await client.sendRootsListChanged();
    await expect
      .poll(
        async () => (await client.callTool({ name: 'file_size', arguments: { path: recording } })).isError,
      )
      .toBe(true);
    await client.close();
    await instance.cleanup();
  });
});
