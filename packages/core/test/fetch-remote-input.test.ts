/**
 * Remote inputs: an https URL a caller gives instead of a local path is downloaded (public hosts only,
 * capped, streamed) into the private inputs directory and handed on as a local file. Only loopback is
 * used: `https://media.example/...` reaches a loopback test server through an injected dispatcher whose
 * connector hands undici a plain TCP socket (so no certificate is needed), or through the real public-only
 * connector with an injected lookup when the address check itself is under test.
 */
import type dns from 'node:dns';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Agent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRemoteInputs } from '../src/download/create-remote-inputs.js';
import { fetchRemoteInput, isRemoteInput } from '../src/download/fetch-remote-input.js';
import { STALE_INPUT_MS } from '../src/download/held-inputs.js';
import { ValidationError } from '../src/errors/polymodal-error.js';
import { createFileAccess, type FileAccess } from '../src/files/create-file-access.js';
import { createPublicOnlyLookup } from '../src/net/public-only-lookup.js';
import { wav } from './support/make-wav.js';
import { startServer, type TestServer } from './support/start-server.js';

const clip = wav(1);
let dir: string;
let files: FileAccess;
const cleanups: (() => Promise<unknown>)[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'remote-input-'));
  // No allowed directories at all: a downloaded input must be readable anyway, and nothing else.
  files = createFileAccess({
    allowedDirs: [],
    outputDir: path.join(dir, 'out'),
    inputsDir: path.join(dir, 'state', 'inputs'),
  });
});
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
  await rm(dir, { recursive: true, force: true });
});

async function serve(handler: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const server = await startServer(handler);
  cleanups.push(() => server.close());
  return server;
}

/** Every connection, whatever the URL's host and scheme, goes to the loopback server in plain TCP. */
function loopbackDispatcher(port: number): Agent {
  const agent = new Agent({
    connect: (_options, callback) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => callback(null, socket));
      socket.once('error', (error) => callback(error, null));
    },
  });
  cleanups.push(() => agent.close());
  return agent;
}

function serveWav(body = clip, headers: Record<string, string> = {}) {
  return serve((_request, response) => {
    response.writeHead(200, {
      'content-type': 'audio/wav',
      'content-length': String(body.length),
      ...headers,
    });
    response.end(body);
  });
}

async function inputsLeft(): Promise<string[]> {
  return readdir(files.inputsDir).catch(() => []);
}

async function refusalOf(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(ValidationError.isInstance(error)).toBe(true);
  return error as Error;
}

describe('fetchRemoteInput', () => {
  it('streams an https file into the private inputs directory, readable only while held, removed after', async () => {
    const server = await serveWav();
    const input = await fetchRemoteInput({
      url: 'https://media.example/lessons/clip.wav?token=abc',
      files,
      field: 'path',
      maxBytes: 1024 * 1024,
      dispatcher: loopbackDispatcher(server.port),
    });
    expect(path.dirname(input.path)).toBe(files.inputsDir);
    expect(path.basename(input.path)).toMatch(/^[0-9a-f]{64}\.wav$/);
    expect(input.size).toBe(clip.length);
    expect(input.url).toBe('https://media.example/lessons/clip.wav');
    expect((await stat(files.inputsDir)).mode & 0o777).toBe(0o700);
    expect((await stat(input.path)).mode & 0o777).toBe(0o600);
    // Readable through the confined FileAccess although no directory is allowed.
    const opened = await files.openReadable(input.path);
    expect(opened.size).toBe(clip.length);
    await opened.handle.close();
    // Nothing of ours travelled with the request.
    const headers = server.requests[0]?.headers ?? {};
    expect(headers.authorization).toBeUndefined();
    expect(headers['x-api-key']).toBeUndefined();
    expect(headers.cookie).toBeUndefined();

    await input.release();
    expect(await inputsLeft()).toEqual([]);
    // No longer held, it is outside every readable directory: refused like any such path, whether or not
    // a file of that name is still there.
    await expect(files.openReadable(input.path)).rejects.toThrow(/no directories are allowed/);
  });

  it('admits nothing in the inputs directory that no call holds', async () => {
    await mkdir(files.inputsDir, { recursive: true });
    const planted = path.join(files.inputsDir, `${'0'.repeat(64)}.wav`);
    await writeFile(planted, clip);
    await expect(files.openReadable(planted)).rejects.toThrow(/no directories are allowed/);
  });

  it('stays readable while another call holds the same file, and only for its own context', async () => {
    const server = await serveWav();
    const dispatcher = loopbackDispatcher(server.port);
    const first = await fetchRemoteInput({
      url: 'https://media.example/clip.wav',
      files,
      field: 'path',
      maxBytes: 1 << 20,
      dispatcher,
    });
    const second = await fetchRemoteInput({
      url: 'https://media.example/clip.wav',
      files,
      field: 'path',
      maxBytes: 1 << 20,
      dispatcher,
    });
    await first.release();
    // The other holder keeps it readable and on disk.
    expect((await files.openReadable(second.path)).size).toBe(clip.length);
    const otherTenant = createFileAccess({
      allowedDirs: [],
      outputDir: path.join(dir, 'other-out'),
      inputsDir: path.join(dir, 'other-state', 'inputs'),
    });
    await expect(otherTenant.openReadable(second.path)).rejects.toThrow(/no directories are allowed/);
    await second.release();
    expect(await inputsLeft()).toEqual([]);
  });

  it('gives the same bytes the same path, size and modification time (the job ledger resumes)', async () => {
    const server = await serveWav();
    const dispatcher = loopbackDispatcher(server.port);
    const fetchOnce = async () => {
      const input = await fetchRemoteInput({
        url: 'https://media.example/clip.wav',
        files,
        field: 'path',
        maxBytes: 1 << 20,
        dispatcher,
      });
      const stats = await stat(input.path);
      await input.release();
      return { path: input.path, size: stats.size, mtimeMs: stats.mtimeMs };
    };
    const first = await fetchOnce();
    const second = await fetchOnce();
    expect(second).toEqual(first);
    expect(server.requests).toHaveLength(2);
  });

  it('sweeps leftovers of stopped processes (by change time) but keeps files held now', async () => {
    const server = await serveWav();
    const dispatcher = loopbackDispatcher(server.port);
    const held = await fetchRemoteInput({
      url: 'https://media.example/held.wav',
      files,
      field: 'path',
      maxBytes: 1 << 20,
      dispatcher,
    });
    const leftovers = [`${'1'.repeat(64)}.wav`, '.download-4242-abcdef.tmp'];
    for (const name of leftovers) await writeFile(path.join(files.inputsDir, name), 'left over');
    const later = await fetchRemoteInput({
      url: 'https://media.example/other.mp3',
      files,
      field: 'path',
      maxBytes: 1 << 20,
      dispatcher,
      now: () => Date.now() + STALE_INPUT_MS + 60_000,
    });
    // Same bytes, other extension: a second file beside the held one.
    expect((await inputsLeft()).sort()).toEqual([path.basename(held.path), path.basename(later.path)].sort());
    await held.release();
    await later.release();
  });

  it('refuses http:// before sending anything, saying to use https', async () => {
    const server = await serveWav();
    const error = await refusalOf(
      fetchRemoteInput({
        url: 'http://media.example/clip.wav',
        files,
        field: 'audioPath',
        maxBytes: 1 << 20,
        dispatcher: loopbackDispatcher(server.port),
      }),
    );
    expect(error.message).toMatch(/^audioPath: http:\/\/ URLs are refused.*https:\/\//);
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    'https://10.0.0.7/clip.wav',
    'https://169.254.169.254/latest/meta-data',
    'https://localhost/clip.wav',
    'https://user:secret@media.example/clip.wav',
  ])('refuses %s before sending anything', async (url) => {
    const server = await serveWav();
    await refusalOf(
      fetchRemoteInput({
        url,
        files,
        field: 'path',
        maxBytes: 1 << 20,
        dispatcher: loopbackDispatcher(server.port),
      }),
    );
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a name that resolves to a private address (the real connector, lookup injected)', async () => {
    const server = await serveWav();
    const loopbackAnswer = ((_hostname: string, _options: unknown, callback: (...args: unknown[]) => void) =>
      callback(null, [{ address: '127.0.0.1', family: 4 }])) as unknown as typeof dns.lookup;
    const error = await refusalOf(
      fetchRemoteInput({
        url: `https://media.example:${server.port}/clip.wav`,
        files,
        field: 'path',
        maxBytes: 1 << 20,
        lookup: createPublicOnlyLookup(loopbackAnswer),
      }),
    );
    expect(error.message).toMatch(/media\.example resolves to 127\.0\.0\.1.*nothing was downloaded/);
    expect(server.requests).toHaveLength(0);
    expect(await inputsLeft()).toEqual([]);
  });

  it('re-checks every redirect: to a private address, to http, and too many', async () => {
    let target = 'https://192.168.1.20/clip.wav';
    const server = await serve((request, response) => {
      if (request.url === '/start') {
        response.writeHead(302, { location: target });
        response.end();
        return;
      }
      response.writeHead(302, { location: '/loop' });
      response.end();
    });
    const dispatcher = loopbackDispatcher(server.port);
    const fetchFrom = (url: string) =>
      fetchRemoteInput({ url, files, field: 'path', maxBytes: 1 << 20, dispatcher });

    expect((await refusalOf(fetchFrom('https://media.example/start'))).message).toMatch(
      /192\.168\.1\.20 is a private/,
    );
    target = 'http://media.example/clip.wav';
    expect((await refusalOf(fetchFrom('https://media.example/start'))).message).toMatch(
      /http:\/\/ URLs are refused/,
    );
    expect((await refusalOf(fetchFrom('https://media.example/loop'))).message).toMatch(
      /redirected too many times/,
    );
    // Only the hops on the public test host were requested: never the private or http target.
    expect(server.requests.every((request) => ['/start', '/loop'].includes(request.url))).toBe(true);
    expect(await inputsLeft()).toEqual([]);
  });

  it('refuses a file whose Content-Length is over the cap before reading it', async () => {
    const big = Buffer.alloc(64 * 1024, 1);
    const server = await serveWav(big);
    const error = await refusalOf(
      fetchRemoteInput({
        url: 'https://media.example/big.wav',
        files,
        field: 'path',
        maxBytes: 1024,
        dispatcher: loopbackDispatcher(server.port),
      }),
    );
    expect(error.message).toMatch(/65536 bytes, over the 1024-byte upload limit/);
    expect(await inputsLeft()).toEqual([]);
  });

  it('stops a download without Content-Length once the counted bytes pass the cap, keeping nothing', async () => {
    let sent = 0;
    const server = await serve(async (_request, response) => {
      response.writeHead(200, { 'content-type': 'audio/wav' });
      // Chunked, with no length: only counting can stop it. It would go on for 64 MiB.
      for (let index = 0; index < 1024 && !response.destroyed; index++) {
        const chunk = Buffer.alloc(64 * 1024);
        sent += chunk.length;
        if (!response.write(chunk)) await new Promise((resolve) => response.once('drain', resolve));
      }
      response.end();
    });
    const error = await refusalOf(
      fetchRemoteInput({
        url: 'https://media.example/endless.wav',
        files,
        field: 'path',
        maxBytes: 256 * 1024,
        dispatcher: loopbackDispatcher(server.port),
      }),
    );
    expect(error.message).toMatch(/is larger than the 262144-byte upload limit of this service/);
    expect(sent).toBeLessThan(64 * 1024 * 1024);
    expect(await inputsLeft()).toEqual([]);
  });

  it('refuses a web page served instead of the file', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end('<html>sign in</html>');
    });
    const error = await refusalOf(
      fetchRemoteInput({
        url: 'https://drive.example/share/abc',
        files,
        field: 'path',
        maxBytes: 1 << 20,
        dispatcher: loopbackDispatcher(server.port),
      }),
    );
    expect(error.message).toMatch(/returned a web page \(text\/html\).*direct link/);
  });
});

describe('createRemoteInputs', () => {
  it('passes local paths through unchanged and downloads an identical URL once per call', async () => {
    const server = await serveWav();
    // The socket seam the MCP servers' tests use: a connected loopback socket per request.
    const inputs = createRemoteInputs({
      files,
      connect: () =>
        new Promise((resolve, reject) => {
          const socket = net.connect(server.port, '127.0.0.1');
          socket.once('connect', () => resolve(socket));
          socket.once('error', reject);
        }),
    });
    expect(await inputs.resolve('/data/rec.wav', { field: 'path', maxBytes: 10 })).toBe('/data/rec.wav');
    const first = await inputs.resolve('https://media.example/a.wav', { field: 'a', maxBytes: 1 << 20 });
    const second = await inputs.resolve('https://media.example/a.wav', { field: 'b', maxBytes: 1 << 20 });
    expect(second).toBe(first);
    expect(server.requests).toHaveLength(1);
    await inputs.release();
    expect(await inputsLeft()).toEqual([]);
  });

  it("names the caller's URL instead of the download's path in a later refusal of the file", async () => {
    const server = await serveWav();
    const inputs = createRemoteInputs({ files, dispatcher: loopbackDispatcher(server.port) });
    const local = await inputs.resolve('https://media.example/a.wav?sig=1', {
      field: 'a',
      maxBytes: 1 << 20,
    });
    const error = inputs.explain(
      new ValidationError(`${local} is not a WAV file. Nothing was sent.`),
    ) as Error;
    expect(error.message).toBe(
      'the file downloaded from https://media.example/a.wav is not a WAV file. Nothing was sent.',
    );
    await inputs.release();
  });

  it('tells URLs from paths', () => {
    expect(isRemoteInput('https://media.example/a.wav')).toBe(true);
    expect(isRemoteInput('http://media.example/a.wav')).toBe(true);
    expect(isRemoteInput('file:///data/a.wav')).toBe(false);
    expect(isRemoteInput('/data/a.wav')).toBe(false);
    expect(isRemoteInput('C:\\data\\a.wav')).toBe(false);
  });
});
