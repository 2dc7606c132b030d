/**
 * summarize_meeting over HTTP sessions with a client that answers `roots/list` with `file:///`: an
 * authenticated (remote) tenant's roots name its own machine and never widen what this server uploads
 * (another tenant's outputs included), and its refusal names no server path; a client on loopback without
 * authentication shares the server's machine, so its roots are still honoured.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createTenantAccess,
  type HttpServerHandle,
  runHttpServer,
  type TenantAccess,
} from '@polymodal/mcp-common/http';
import { tokenSha256 } from '@polymodal/mcp-common/testing';
import { type Sandbox, startSandbox, writeMeetingRecording } from '@polymodal/sandbox';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer } from '../src/server.js';
import { SHORT_SCRIPT } from './support/harness.js';

const TOKEN_A = 'team-a-token-roots-3e9d51';

/** A client whose roots are the whole disk of its own machine; counts how often it was asked for them. */
async function connectWithRootAtSlash(url: string, token?: string) {
  const client = new Client(
    { name: 'roots', version: '1' },
    { capabilities: { roots: { listChanged: true } } },
  );
  let asked = 0;
  client.setRequestHandler('roots/list', async () => {
    asked += 1;
    return { roots: [{ uri: 'file:///', name: 'everything' }] };
  });
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(url),
      token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {},
    ),
  );
  return { client, asked: () => asked };
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { type: string; text: string }[])[0]?.text ?? '';

describe('MCP roots of an HTTP client', () => {
  let sandbox: Sandbox;
  let root: string;
  let env: NodeJS.ProcessEnv;
  let access: TenantAccess | undefined;
  let handle: HttpServerHandle | undefined;
  let client: Client | undefined;

  beforeAll(async () => {
    sandbox = await startSandbox({ speed: 100 });
  });
  afterAll(async () => {
    await sandbox?.close();
  });
  beforeEach(async () => {
    await sandbox.control.reset();
    root = await mkdtemp(path.join(os.tmpdir(), 'meeting-http-roots-'));
    await mkdir(path.join(root, 'media'));
    env = {
      POLYMODAL_BASE_URL: sandbox.url,
      POLYMODAL_STATE_DIR: path.join(root, 'state'),
      POLYMODAL_OUTPUT_DIR: path.join(root, 'out'),
      POLYMODAL_ALLOWED_DIRS: path.join(root, 'media'),
      POLYMODAL_LOG_LEVEL: 'error',
      POLYMODAL_POLL_INTERVAL_MS: '20',
    };
  });
  afterEach(async () => {
    await client?.close();
    await handle?.close();
    await access?.close();
    client = undefined;
    handle = undefined;
    access = undefined;
    await rm(root, { recursive: true, force: true });
  });

  /** The meeting server over HTTP for one tenant (team-a, TOKEN_A) of a tenants file. */
  async function serveTenantA(options: { sessions: boolean }): Promise<HttpServerHandle> {
    const tenantsFile = path.join(root, 'tenants.json');
    await writeFile(
      tenantsFile,
      JSON.stringify({
        tenants: [{ id: 'team-a', tokenSha256: tokenSha256(TOKEN_A), apiKey: sandbox.apiKey }],
      }),
    );
    access = await createTenantAccess({
      env: { ...env, POLYMODAL_TENANTS_FILE: tenantsFile },
      name: 'meeting',
    });
    return runHttpServer((request) => createServer({ platform: request?.platform }), {
      port: 0,
      access,
      sessions: options.sessions,
    });
  }

  it("never reads beyond an authenticated tenant's directories, whatever its roots say, and names no server path", async () => {
    handle = await serveTenantA({ sessions: true });
    // Another tenant's saved output and a file nobody was given: both readable by the process.
    const otherTenants = path.join(root, 'out', 'team-b', 'board-meeting.wav');
    const nobodys = path.join(root, 'private', 'payroll.wav');
    for (const file of [otherTenants, nobodys]) {
      await mkdir(path.dirname(file), { recursive: true });
      await writeMeetingRecording(file, { script: SHORT_SCRIPT });
    }
    const connected = await connectWithRootAtSlash(handle.url, TOKEN_A);
    client = connected.client;

    const answers: string[] = [];
    for (const file of [otherTenants, nobodys, path.join(root, 'private', 'missing.wav')]) {
      const result = await client.callTool({
        name: 'summarize_meeting',
        arguments: { path: file, sourceLanguage: 'en', waitSeconds: 0 },
      });
      expect(result.isError, textOf(result)).toBe(true);
      answers.push(textOf(result).replace(file, '<path>'));
    }
    expect(answers[0]).toMatch(/<path> is outside the allowed directories/);
    // The same answer for an existing and a missing file, naming no directory of the server.
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).not.toContain(root);
    expect(sandbox.control.requests()).toHaveLength(0);
    expect(connected.asked()).toBe(0);
  });

  it("names a tenant's files inside its directories relative to them, in refusals and in list_jobs", async () => {
    handle = await serveTenantA({ sessions: false });
    const empty = path.join(root, 'media', 'empty.wav');
    await writeFile(empty, '');
    const weekly = path.join(root, 'media', 'weekly.wav');
    await writeMeetingRecording(weekly, { script: SHORT_SCRIPT });
    client = new Client({ name: 'tenant', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(handle.url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN_A}` } },
      }),
    );

    const refused = await client.callTool({
      name: 'summarize_meeting',
      arguments: { path: empty, sourceLanguage: 'en', waitSeconds: 0 },
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^invalid input: empty\.wav is empty/);
    expect(textOf(refused)).not.toContain(root);

    const started = await client.callTool({
      name: 'summarize_meeting',
      arguments: { path: weekly, sourceLanguage: 'en', waitSeconds: 0 },
    });
    expect(started.isError, textOf(started)).toBeFalsy();
    const listed = await client.callTool({ name: 'list_jobs', arguments: {} });
    const jobs = (listed.structuredContent as { jobs: { file?: string }[] }).jobs;
    expect(jobs.map((job) => job.file)).toEqual(['weekly.wav']);
    expect(JSON.stringify(listed)).not.toContain(root);
  });

  it('honours the roots of a client on loopback without authentication', async () => {
    access = await createTenantAccess({
      env: { ...env, POLYMODAL_API_KEY: sandbox.apiKey },
      name: 'meeting',
    });
    handle = await runHttpServer((request) => createServer({ platform: request?.platform }), {
      port: 0,
      access,
      sessions: true,
    });
    const elsewhere = path.join(root, 'elsewhere', 'standup.wav');
    await mkdir(path.dirname(elsewhere), { recursive: true });
    await writeMeetingRecording(elsewhere, { script: SHORT_SCRIPT });
    const connected = await connectWithRootAtSlash(handle.url);
    client = connected.client;

    const result = await client.callTool({
      name: 'summarize_meeting',
      arguments: { path: elsewhere, sourceLanguage: 'en', waitSeconds: 0 },
    });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(connected.asked()).toBe(1);
    expect(
      sandbox.control.requests({ method: 'POST', path: '/api/conference-summary/v1/uploads$' }),
    ).toHaveLength(1);
  });
});
