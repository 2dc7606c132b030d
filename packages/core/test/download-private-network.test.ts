/**
 * Downloads from other origins never reach a private network: odd spellings of a private address are
 * refused before anything is sent, and a connection that lands on a non-public address although the name
 * was checked (DNS rebinding) is refused after connecting, before a request or TLS handshake goes out.
 * Only loopback is used: an injected lookup stands in for the resolver.
 */
import type dns from 'node:dns';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { type AddressInfo, createServer, type LookupFunction, type Server, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Agent, type Dispatcher } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMediaDownloader, type MediaDownloader } from '../src/download/download-media.js';
import { ValidationError } from '../src/errors/polymodal-error.js';
import { createFileAccess } from '../src/files/create-file-access.js';
import { createPublicOnlyConnector } from '../src/net/public-only-connector.js';
import { createPublicOnlyLookup } from '../src/net/public-only-lookup.js';
import { startServer, type TestServer } from './support/start-server.js';

const KEY = 'pm_live_rebindkey';
const mp4 = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypisom'), Buffer.alloc(300)]);

let dir: string;
const cleanups: (() => Promise<unknown>)[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'download-private-'));
});
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
  await rm(dir, { recursive: true, force: true });
});

/** A resolver that answers every name with one public-looking address. */
const publicAnswer = ((_hostname: string, _options: unknown, callback: (...args: unknown[]) => void) =>
  callback(null, [{ address: '93.184.216.34', family: 4 }])) as unknown as typeof dns.lookup;

/**
 * The name passes the public-only check (it resolves to 93.184.216.34), but the socket is handed 127.0.0.1:
 * what a resolver re-pointed between check and connect looks like to the connection.
 */
function rebindingLookup(): LookupFunction {
  const checked = createPublicOnlyLookup(publicAnswer);
  return (hostname, options, callback) => {
    checked(hostname, options, (error) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      if (options.all) {
        (callback as unknown as (error: null, addresses: dns.LookupAddress[]) => void)(null, [
          { address: '127.0.0.1', family: 4 },
        ]);
        return;
      }
      callback(null, '127.0.0.1', 4);
    });
  };
}

/** A loopback TCP server that records every byte it receives (a TLS ClientHello included). */
async function startRawServer(): Promise<{
  port: number;
  received: () => number;
  connections: () => number;
}> {
  let bytes = 0;
  let connections = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('data', (chunk) => {
      bytes += chunk.length;
    });
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return {
    port: (server.address() as AddressInfo).port,
    received: () => bytes,
    connections: () => connections,
  };
}

async function serveMp4(): Promise<TestServer> {
  const server = await startServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(mp4.length) });
    response.end(mp4);
  });
  cleanups.push(() => server.close());
  return server;
}

function downloaderFor(
  platformUrl: string,
  extra: { publicLookup?: LookupFunction; publicDispatcher?: Dispatcher } = {},
): MediaDownloader {
  const downloader = createMediaDownloader({
    platform: { baseUrl: platformUrl, authHeaders: () => ({ 'x-api-key': KEY }) },
    files: createFileAccess({ allowedDirs: [dir], outputDir: path.join(dir, 'out') }),
    ...extra,
  });
  cleanups.push(() => downloader.close());
  return downloader;
}

async function outputFiles(): Promise<string[]> {
  return readdir(path.join(dir, 'out')).catch(() => []);
}

describe('downloads from another origin that land on a private network', () => {
  it('are refused after connecting when the name checked public but the socket reached loopback (http)', async () => {
    const platform = await serveMp4();
    const target = await serveMp4();
    const downloader = downloaderFor(platform.url, { publicLookup: rebindingLookup() });
    const error = await downloader
      .download({ url: `http://media.example:${target.port}/clip.mp4`, kind: 'video', fileName: 'clip.mp4' })
      .catch((caught: unknown) => caught);
    expect(ValidationError.isInstance(error)).toBe(true);
    const message = (error as Error).message;
    expect(message).toMatch(/media\.example/);
    expect(message).toMatch(/127\.0\.0\.1/);
    expect(message).toMatch(/nothing was downloaded/);
    expect(message).not.toContain(KEY);
    expect(target.requests).toHaveLength(0);
    expect(await outputFiles()).toEqual([]);
  });

  it('are refused before the TLS handshake, so the name is not even sent (https)', async () => {
    const platform = await serveMp4();
    const target = await startRawServer();
    const downloader = downloaderFor(platform.url, { publicLookup: rebindingLookup() });
    await expect(
      downloader.download({
        url: `https://media.example:${target.port}/clip.mp4`,
        kind: 'video',
        fileName: 'clip.mp4',
      }),
    ).rejects.toThrow(/connection to media\.example reached 127\.0\.0\.1.*nothing was downloaded/);
    expect(target.connections()).toBe(1);
    expect(target.received()).toBe(0);
    expect(await outputFiles()).toEqual([]);
  });

  it('keep downloads from the platform origin working, which is exempt by design (the sandbox is local)', async () => {
    const platform = await serveMp4();
    const downloader = downloaderFor(platform.url, { publicLookup: rebindingLookup() });
    const saved = await downloader.download({ url: '/files/clip.mp4', kind: 'video', fileName: 'clip.mp4' });
    expect(saved.size).toBe(mp4.length);
    expect(await outputFiles()).toEqual(['clip.mp4']);
  });

  it.each([
    'http://[::ffff:127.0.0.1]/clip.mp4',
    'http://[::127.0.0.1]/clip.mp4',
    'http://[2002:7f00:1::]/clip.mp4',
    'http://[64:ff9b::7f00:1]/clip.mp4',
    'http://2130706433/clip.mp4',
    'http://0x7f.1/clip.mp4',
    'http://127.1/clip.mp4',
  ])('refuses %s before sending anything', async (url) => {
    const platform = await serveMp4();
    const dispatched: string[] = [];
    const recorder = new Agent().compose((dispatch) => (options, handler) => {
      dispatched.push(`${options.origin}${options.path}`);
      return dispatch(options, handler);
    });
    const downloader = downloaderFor(platform.url, { publicDispatcher: recorder });
    await expect(downloader.download({ url, kind: 'video', fileName: 'clip.mp4' })).rejects.toThrow(
      /non-public host.*Nothing was sent/,
    );
    expect(dispatched).toEqual([]);
    expect(platform.requests).toHaveLength(0);
  });
});

describe('createPublicOnlyConnector', () => {
  function connectWith(
    lookup: LookupFunction,
    port: number,
    protocol: 'http:' | 'https:',
  ): Promise<Error | Socket> {
    const connect = createPublicOnlyConnector({ lookup });
    return new Promise((resolve) => {
      connect({ hostname: 'media.example', protocol, port: String(port) }, (error, socket) =>
        resolve(error ?? (socket as Socket)),
      );
    });
  }

  it.each(['http:', 'https:'] as const)(
    'judges the address reached, not the one the lookup vouched for (%s)',
    async (protocol) => {
      const target = await startRawServer();
      const outcome = await connectWith(rebindingLookup(), target.port, protocol);
      expect(outcome).toMatchObject({
        code: 'EPRIVATEADDRESS',
        stage: 'connect',
        hostname: 'media.example',
        address: '127.0.0.1',
      });
      expect(target.received()).toBe(0);
    },
  );

  it('refuses at lookup time, before dialling, when the name resolves to a private address', async () => {
    const target = await startRawServer();
    const loopbackAnswer = ((_hostname: string, _options: unknown, callback: (...args: unknown[]) => void) =>
      callback(null, [{ address: '127.0.0.1', family: 4 }])) as unknown as typeof dns.lookup;
    const outcome = await connectWith(createPublicOnlyLookup(loopbackAnswer), target.port, 'http:');
    expect(outcome).toMatchObject({ code: 'EPRIVATEADDRESS', stage: 'lookup', address: '127.0.0.1' });
    expect(target.connections()).toBe(0);
  });
});
