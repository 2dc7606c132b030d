/**
 * summarize_meeting with an https URL instead of a local path, against the sandbox: the recording is
 * downloaded (capped at the service's maxUploadBytes, read only after the URL's form passed), uploaded
 * and summarized once; the same URL again resumes the recorded job with no second upload; an http:// URL
 * is refused before any platform request. The media host is a loopback server reached through the
 * server's test-only socket seam (`remoteInputs.connect`, never read from configuration).
 */
import { readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../src/server.js';
import { type Harness, requestsMatching, startHarness } from './support/harness.js';

describe('summarize_meeting with an https URL', () => {
  let harness: Harness;
  let media: http.Server;
  let client: Client;
  let cleanup: () => Promise<void>;
  const served: string[] = [];

  beforeAll(async () => {
    harness = await startHarness({ speed: 100 });
    const recording = await readFile(await harness.writeRecording('standup.wav'));
    media = http.createServer((request, response) => {
      served.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'audio/wav', 'content-length': String(recording.length) });
      response.end(recording);
    });
    await new Promise<void>((resolve) => media.listen(0, '127.0.0.1', resolve));
    const port = (media.address() as AddressInfo).port;
    const instance = createServer({
      env: harness.env,
      remoteInputs: {
        connect: () =>
          new Promise((resolve, reject) => {
            const socket = net.connect(port, '127.0.0.1');
            socket.once('connect', () => resolve(socket));
            socket.once('error', reject);
          }),
      },
    });
    client = new Client({ name: 'remote-input', version: '1' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await instance.server.connect(serverSide);
    await client.connect(clientSide);
    cleanup = async () => {
      await client.close();
      await instance.cleanup();
    };
  });
  afterAll(async () => {
    await cleanup?.();
    media?.closeAllConnections();
    await new Promise((resolve) => media?.close(resolve));
    await harness?.close();
  });

  async function summarize(recordingUrl: string) {
    const result = (await client.callTool({
      name: 'summarize_meeting',
      arguments: { path: recordingUrl, waitSeconds: 0 },
    })) as CallToolResult;
    const text = result.content.map((item) => (item.type === 'text' ? item.text : '')).join('\n');
    expect(text).not.toContain(harness.sandbox.apiKey);
    return {
      isError: result.isError === true,
      text,
      structured: (result.structuredContent ?? {}) as Record<string, unknown>,
    };
  }

  it('uploads the downloaded recording once and resumes the recorded job for the same URL', async () => {
    const first = await summarize('https://media.example/team/standup.wav');
    expect(first.isError, first.text).toBe(false);
    expect(first.structured.jobId).toMatch(/\S/);
    expect(first.structured.resumed).toBe(false);
    expect(requestsMatching(harness.sandbox, 'POST /api/conference-summary/v1/uploads')).toBe(1);

    const again = await summarize('https://media.example/team/standup.wav');
    expect(again.isError, again.text).toBe(false);
    expect(again.structured).toMatchObject({ jobId: first.structured.jobId, resumed: true });
    expect(requestsMatching(harness.sandbox, 'POST /api/conference-summary/v1/uploads')).toBe(1);
    expect(served).toEqual(['/team/standup.wav', '/team/standup.wav']);
    // Nothing is left in the private inputs directory after the calls.
    expect(await readdir(path.join(harness.stateDir, 'inputs'))).toEqual([]);
  });

  it('refuses an http:// URL before any platform request', async () => {
    const before = harness.sandbox.control.requests().length;
    const result = await summarize('http://media.example/team/standup.wav');
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/path: http:\/\/ URLs are refused.*give an https:\/\/ URL/);
    expect(harness.sandbox.control.requests().length).toBe(before);
  });
});
