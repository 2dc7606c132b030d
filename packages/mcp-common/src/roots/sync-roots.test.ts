import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import type { FileAccess } from '@polymodal/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileUrisToPaths, syncRoots } from './sync-roots.js';

function fakeFiles() {
  const calls: string[][] = [];
  const files = { setRoots: (dirs: readonly string[]) => calls.push([...dirs]) } as unknown as FileAccess;
  return { files, calls };
}

describe('syncRoots', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'roots-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads the roots of a client that declares them, and reloads on list_changed', async () => {
    const server = new McpServer({ name: 't', version: '1' });
    const { files, calls } = fakeFiles();
    const sync = syncRoots(server, files);
    let roots = [
      { uri: pathToFileURL(path.join(dir, 'a')).href, name: 'a' },
      { uri: pathToFileURL(path.join(dir, 'c d')).href },
    ];
    const client = new Client(
      { name: 'c', version: '1' },
      { capabilities: { roots: { listChanged: true } } },
    );
    client.setRequestHandler('roots/list', async () => ({ roots }));
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    await client.connect(clientTransport);
    await expect.poll(() => calls.length).toBe(1);
    await sync.ready();
    expect(calls[0]).toEqual([path.join(dir, 'a'), path.join(dir, 'c d')]);

    roots = [{ uri: pathToFileURL(path.join(dir, 'b')).href, name: 'b' }];
    await client.sendRootsListChanged();
    await expect.poll(() => calls.length).toBe(2);
    expect(calls[1]).toEqual([path.join(dir, 'b')]);
    await client.close();
  });

  it('leaves file access alone for clients without roots', async () => {
    const server = new McpServer({ name: 't', version: '1' });
    const { files, calls } = fakeFiles();
    const sync = syncRoots(server, files);
    const client = new Client({ name: 'c', version: '1' });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    await client.connect(clientTransport);
    await sync.ready();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toEqual([]);
    await client.close();
  });
});

describe('fileUrisToPaths', () => {
  it('keeps file URIs only', () => {
    expect(fileUrisToPaths(['file:///srv/rec', 'http://x/y', 'not a uri'])).toEqual(['/srv/rec']);
  });
});
