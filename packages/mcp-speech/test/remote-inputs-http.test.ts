/**
 * Remote inputs over real HTTP, with the real SDK client, two tenants and the sandbox as the platform:
 * score_reading with an https URL instead of a local path downloads the recording (no credentials sent),
 * scores it for the calling tenant, removes the download, and a repeated call resumes the recorded score
 * instead of paying again (the ledger's fingerprint follows the downloaded content). Bad URLs and a file
 * over the service's upload limit are refused with a clear tool error before any platform request.
 *
 * The media host is a loopback server: the server's test-only socket seam (`remoteInputs.connect`, never
 * read from configuration) connects `https://media.example/...` to it in plain TCP.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ServerFactory } from '@polymodal/mcp-common/host';
import {
  createTenantAccess,
  type HttpServerHandle,
  runHttpServer,
  type TenantAccess,
} from '@polymodal/mcp-common/http';
import { tokenSha256 } from '@polymodal/mcp-common/testing';
import { createReadingRecording, SAMPLE_READING_TEXT, type Sandbox, startSandbox } from '@polymodal/sandbox';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer } from '../src/server.js';

const TOKEN_A = 'token-of-team-a-31be7c';
const TOKEN_B = 'token-of-team-b-c05f92';
const recording = createReadingRecording({ attempts: [SAMPLE_READING_TEXT] });

describe('score_reading with an https URL, over HTTP with two tenants', () => {
  let sandbox: Sandbox;
  let media: http.Server;
  let mediaPort: number;
  const mediaRequests: { url: string; headers: http.IncomingHttpHeaders }[] = [];
  let root: string;
  let access: TenantAccess | undefined;
  let handle: HttpServerHandle | undefined;
  const clients: Client[] = [];

  beforeAll(async () => {
    sandbox = await startSandbox({ speed: 100 });
    media = http.createServer((request, response) => {
      mediaRequests.push({ url: request.url ?? '', headers: request.headers });
      if (request.url === '/notes.wav') {
        response.writeHead(200, { 'content-type': 'application/octet-stream' });
        response.end('these are meeting notes, not a recording');
        return;
      }
      if (request.url === '/huge.wav') {
        // Declares 60 MiB (over the reading-score upload limit, 50 MiB); the body is never sent.
        response.writeHead(200, { 'content-type': 'audio/wav', 'content-length': String(60 * 1024 * 1024) });
        response.flushHeaders();
        return;
      }
      response.writeHead(200, { 'content-type': 'audio/wav', 'content-length': String(recording.length) });
      response.end(recording);
    });
    await new Promise<void>((resolve) => media.listen(0, '127.0.0.1', resolve));
    mediaPort = (media.address() as AddressInfo).port;
  });
  afterAll(async () => {
    media.closeAllConnections();
    await new Promise((resolve) => media.close(resolve));
    await sandbox?.close();
  });

  beforeEach(async () => {
    mediaRequests.length = 0;
    root = await mkdtemp(path.join(os.tmpdir(), 'mcp-remote-inputs-'));
    const tenantsFile = path.join(root, 'tenants.json');
    await writeFile(
      tenantsFile,
      JSON.stringify({
        tenants: [
          { id: 'team-a', tokenSha256: tokenSha256(TOKEN_A), apiKey: sandbox.apiKey },
          { id: 'team-b', tokenSha256: tokenSha256(TOKEN_B), apiKey: sandbox.apiKey2 },
        ],
      }),
    );
    // No POLYMODAL_ALLOWED_DIRS: a remote caller has no local directory here, only URLs.
    const env = {
      POLYMODAL_BASE_URL: sandbox.url,
      POLYMODAL_TENANTS_FILE: tenantsFile,
      POLYMODAL_STATE_DIR: path.join(root, 'state'),
      POLYMODAL_OUTPUT_DIR: path.join(root, 'out'),
      POLYMODAL_LOG_LEVEL: 'error',
    };
    const connect = () =>
      new Promise<net.Socket>((resolve, reject) => {
        const socket = net.connect(mediaPort, '127.0.0.1');
        socket.once('connect', () => resolve(socket));
        socket.once('error', reject);
      });
    const factory: ServerFactory = (request) =>
      createServer({
        ...(request?.platform ? { platform: request.platform } : {}),
        remoteInputs: { connect },
      });
    access = await createTenantAccess({ env, name: 'speech' });
    handle = await runHttpServer(factory, { port: 0, access });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await handle?.close();
    await access?.close();
    handle = undefined;
    access = undefined;
    await rm(root, { recursive: true, force: true });
  });

  async function connectAs(token: string): Promise<Client> {
    const client = new Client({ name: 'remote', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(handle?.url ?? ''), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    return client;
  }

  async function score(client: Client, studentAudioPath: string) {
    const result = (await client.callTool({
      name: 'score_reading',
      arguments: { studentAudioPath, referenceText: SAMPLE_READING_TEXT },
    })) as CallToolResult;
    const text = result.content.map((item) => (item.type === 'text' ? item.text : '')).join('\n');
    for (const secret of [sandbox.apiKey, sandbox.apiKey2, TOKEN_A, TOKEN_B])
      expect(text).not.toContain(secret);
    return {
      isError: result.isError === true,
      text,
      structured: (result.structuredContent ?? {}) as Record<string, unknown>,
    };
  }

  const scoredFor = (index: number) =>
    sandbox.control.counters().readingScores?.[sandbox.users[index]?.id ?? ''] ?? 0;
  const inputsOf = (tenant: string) =>
    readdir(path.join(root, 'state', 'tenants', tenant, 'inputs')).catch(() => []);

  it('downloads, scores for the calling tenant, removes the download, and resumes a repeated call', async () => {
    const teamA = await connectAs(TOKEN_A);
    const beforeA = scoredFor(0);
    const beforeB = scoredFor(1);
    const first = await score(teamA, 'https://media.example/lessons/reading.wav?sig=abc');
    expect(first.isError, first.text).toBe(false);
    expect(first.structured).toMatchObject({
      done: true,
      correctWords: 7,
      referenceWords: 7,
      resumed: false,
    });
    expect(scoredFor(0) - beforeA).toBe(1);
    expect(scoredFor(1) - beforeB).toBe(0);
    expect(mediaRequests).toHaveLength(1);
    expect(mediaRequests[0]?.url).toBe('/lessons/reading.wav?sig=abc');
    // Nothing of the platform's or the caller's travelled to the media host.
    const sent = JSON.stringify(mediaRequests[0]?.headers);
    for (const secret of [sandbox.apiKey, sandbox.apiKey2, TOKEN_A, 'authorization', 'x-api-key']) {
      expect(sent).not.toContain(secret);
    }
    expect(await inputsOf('team-a')).toEqual([]);

    // The same bytes again (downloaded again): the recorded score, not a second charge.
    const again = await score(teamA, 'https://media.example/lessons/reading.wav?sig=abc');
    expect(again.isError, again.text).toBe(false);
    expect(again.structured).toMatchObject({ done: true, correctWords: 7, resumed: true });
    expect(scoredFor(0) - beforeA).toBe(1);
    expect(mediaRequests).toHaveLength(2);

    // Tenant B's ledger is its own: the same URL is new work for B, on B's key.
    const teamB = await connectAs(TOKEN_B);
    const forB = await score(teamB, 'https://media.example/lessons/reading.wav?sig=abc');
    expect(forB.structured).toMatchObject({ done: true, resumed: false });
    expect(scoredFor(1) - beforeB).toBe(1);
    expect(await inputsOf('team-b')).toEqual([]);
  });

  it('refuses bad URLs and a file over the upload limit with a clear error before any platform request', async () => {
    const teamA = await connectAs(TOKEN_A);
    const platformBefore = sandbox.control.requests().length;
    const refusals: [string, RegExp][] = [
      [
        'http://media.example/reading.wav',
        /studentAudioPath: http:\/\/ URLs are refused.*give an https:\/\/ URL/,
      ],
      ['https://10.1.2.3/reading.wav', /studentAudioPath: 10\.1\.2\.3 is a private.*non-public host/],
      ['https://user:pw@media.example/reading.wav', /must not carry credentials/],
      ['https://media.example/huge.wav', /62914560 bytes, over the 50 MiB upload limit of this service/],
    ];
    for (const [url, message] of refusals) {
      const result = await score(teamA, url);
      expect(result.isError, url).toBe(true);
      expect(result.text, url).toMatch(message);
      expect(result.text).not.toContain('pw@');
    }
    expect(sandbox.control.requests().length).toBe(platformBefore);
    expect(mediaRequests.map((request) => request.url)).toEqual(['/huge.wav']);
    expect(await inputsOf('team-a')).toEqual([]);
  });

  it("names the caller's URL, not a path on the server, when the downloaded file is refused", async () => {
    const teamA = await connectAs(TOKEN_A);
    const platformBefore = sandbox.control.requests().length;
    const result = await score(teamA, 'https://media.example/notes.wav');
    expect(result.isError).toBe(true);
    expect(result.text).toContain('the file downloaded from https://media.example/notes.wav');
    expect(result.text).not.toContain(root);
    expect(sandbox.control.requests().length).toBe(platformBefore);
    expect(await inputsOf('team-a')).toEqual([]);
  });

  it('still confines local paths: with no allowed directory, a path on the server is refused', async () => {
    const teamA = await connectAs(TOKEN_A);
    const file = path.join(root, 'reading.wav');
    await writeFile(file, recording);
    const result = await score(teamA, file);
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/no directories are allowed/);
  });
});
