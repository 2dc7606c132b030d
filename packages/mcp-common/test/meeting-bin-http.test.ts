/**
 * The built meeting bin over HTTP, as a team would run it: tenants isolated from each other (jobs,
 * list_jobs, get_meeting), the tenants file reloaded on SIGHUP, a non-loopback bind without a tenants
 * file refused with exit code 2 before listening, --version, and a clean stop on SIGTERM. What tenants'
 * clients experience is checked for both protocol generations.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { access, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import { type Sandbox, startSandbox, writeMeetingRecording } from '@polymodal/sandbox';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connectWithToken } from './support/raw-http.js';
import { tokenSha256 } from './support/serve-tenants.js';
import { GENERATIONS, type ProtocolGeneration } from './support/server-harness.js';

const MEETING_PACKAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'mcp-meeting');
const BIN = path.join(MEETING_PACKAGE, 'dist', 'index.js');
const TOKEN_A = 'team-a-token-5c2f0e91';
const TOKEN_B = 'team-b-token-a83d7b44';

interface RunningBin {
  child: ChildProcess;
  url: string;
  stderr(): string;
  /** Resolves when stderr has printed a line matching `pattern` since `after` characters. */
  waitForStderr(pattern: RegExp, after?: number): Promise<void>;
  exited: Promise<number | null>;
}

function spawnBin(args: string[], env: NodeJS.ProcessEnv): Omit<RunningBin, 'url'> & { stdout(): string } {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  const waiters = new Set<() => void>();
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    for (const waiter of waiters) waiter();
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    exited,
    stderr: () => stderr,
    stdout: () => stdout,
    waitForStderr(pattern, after = 0) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (pattern.test(stderr.slice(after))) {
            waiters.delete(check);
            resolve();
          }
        };
        waiters.add(check);
        exited.then(() => {
          waiters.delete(check);
          if (!pattern.test(stderr.slice(after)))
            reject(new Error(`the bin exited first; stderr:\n${stderr}`));
        });
        check();
      });
    },
  };
}

async function startBin(env: NodeJS.ProcessEnv): Promise<RunningBin> {
  const bin = spawnBin(['--http', '--port', '0'], env);
  await bin.waitForStderr(/endpoint at http:\/\/\S+\/mcp/);
  const url = /endpoint at (http:\/\/\S+\/mcp)/.exec(bin.stderr())?.[1] as string;
  return { ...bin, url };
}

function connect(url: string, token: string, generation: ProtocolGeneration): Promise<Client> {
  return connectWithToken(url, token, 'team-client', generation);
}

describe('the built meeting bin over HTTP', () => {
  let sandbox: Sandbox;
  let root: string;
  let tenantsFile: string;
  let env: NodeJS.ProcessEnv;
  let running: RunningBin | undefined;
  const clients: Client[] = [];

  beforeAll(async () => {
    await access(BIN).catch(() => {
      throw new Error(`${BIN} is missing: build it first (pnpm --filter @polymodal/mcp-meeting build)`);
    });
    sandbox = await startSandbox({ speed: 100 });
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'mcp-meeting-http-'));
    await mkdir(path.join(root, 'media'), { recursive: true });
    tenantsFile = path.join(root, 'tenants.json');
    await writeFile(
      tenantsFile,
      JSON.stringify({
        tenants: [
          { id: 'team-a', tokenSha256: tokenSha256(TOKEN_A), apiKey: sandbox.apiKey },
          { id: 'team-b', tokenSha256: tokenSha256(TOKEN_B), apiKey: sandbox.apiKey2 },
        ],
      }),
    );
    // No POLYMODAL_API_KEY: every platform call must use the caller's tenant key.
    env = {
      POLYMODAL_BASE_URL: sandbox.url,
      POLYMODAL_TENANTS_FILE: tenantsFile,
      POLYMODAL_STATE_DIR: path.join(root, 'state'),
      POLYMODAL_OUTPUT_DIR: path.join(root, 'out'),
      POLYMODAL_ALLOWED_DIRS: path.join(root, 'media'),
      POLYMODAL_POLL_INTERVAL_MS: '20',
    };
  });
  afterEach(async () => {
    await Promise.allSettled(clients.splice(0).map((client) => client.close()));
    if (running && running.child.exitCode === null) {
      running.child.kill('SIGTERM');
      // SIGTERM stops the server cleanly: it exits 0.
      expect(await running.exited).toBe(0);
    }
    running = undefined;
    await rm(root, { recursive: true, force: true });
  });

  describe.each(GENERATIONS)('a %s client', (generation) => {
    it("keeps tenants apart: team B does not see team A's job in list_jobs, and get_meeting on it is a 404", async () => {
      running = await startBin(env);
      const recording = path.join(root, 'media', 'standup.wav');
      await writeMeetingRecording(recording, {
        script: [
          { speaker: 'Alice', text: 'We decided to ship the beta on Friday.' },
          { speaker: 'Bob', text: 'I will write the release notes.' },
        ],
      });
      const teamA = await connect(running.url, TOKEN_A, generation);
      const teamB = await connect(running.url, TOKEN_B, generation);
      clients.push(teamA, teamB);

      const started = await teamA.callTool({
        name: 'summarize_meeting',
        arguments: { path: recording, waitSeconds: 0 },
      });
      expect(started.isError, JSON.stringify(started.content)).toBeFalsy();
      const jobId = (started.structuredContent as { jobId: string }).jobId;
      expect(jobId).toEqual(expect.any(String));

      const listedA = await teamA.callTool({ name: 'list_jobs', arguments: {} });
      expect(
        (listedA.structuredContent as { jobs: { jobId: string }[] }).jobs.map((job) => job.jobId),
      ).toContain(jobId);
      const listedB = await teamB.callTool({ name: 'list_jobs', arguments: {} });
      expect(listedB.structuredContent).toMatchObject({ count: 0, jobs: [] });

      const readByB = await teamB.callTool({ name: 'get_meeting', arguments: { jobId, waitSeconds: 0 } });
      expect(readByB.isError).toBe(true);
      const text = (readByB.content as { type: string; text: string }[])[0]?.text ?? '';
      expect(text).toMatch(/^HTTP 404: job .* is unknown or belongs to another user/);

      // The job is recorded in team A's own state directory, and nowhere else.
      expect(await filesMentioning(path.join(root, 'state'), jobId)).toEqual([
        expect.stringMatching(/^tenants\/team-a\/jobs\/entries\/meeting\//),
      ]);
      const output = running.stderr();
      for (const secret of [TOKEN_A, TOKEN_B, sandbox.apiKey, sandbox.apiKey2])
        expect(output).not.toContain(secret);
    });

    it('re-reads the tenants file on SIGHUP, and keeps the tenants it has when the new file is bad', async () => {
      await writeFile(
        tenantsFile,
        JSON.stringify({
          tenants: [{ id: 'team-a', tokenSha256: tokenSha256(TOKEN_A), apiKey: sandbox.apiKey }],
        }),
      );
      running = await startBin(env);
      await expect(connect(running.url, TOKEN_B, generation)).rejects.toThrow(/401|unauthorized/i);

      await writeFile(
        tenantsFile,
        JSON.stringify({
          tenants: [{ id: 'team-b', tokenSha256: tokenSha256(TOKEN_B), apiKey: sandbox.apiKey2 }],
        }),
      );
      let mark = running.stderr().length;
      running.child.kill('SIGHUP');
      await running.waitForStderr(/tenants file reloaded: 1 tenant\(s\); added team-b; removed team-a/, mark);
      const teamB = await connect(running.url, TOKEN_B, generation);
      clients.push(teamB);
      expect((await teamB.listTools()).tools.map((tool) => tool.name)).toContain('list_jobs');
      await expect(connect(running.url, TOKEN_A, generation)).rejects.toThrow(/401|unauthorized/i);

      await writeFile(tenantsFile, `{"tenants": [{"id": "team-c", "apiKey": "${sandbox.apiKey}"}]}`);
      mark = running.stderr().length;
      running.child.kill('SIGHUP');
      await running.waitForStderr(
        /tenants file not reloaded, keeping the 1 tenant\(s\) loaded before: .*tokenSha256/,
        mark,
      );
      expect(running.stderr()).not.toContain(sandbox.apiKey);
      const again = await connect(running.url, TOKEN_B, generation);
      clients.push(again);
      expect((await again.listTools()).tools.length).toBeGreaterThan(0);
    });
  });

  it('refuses to listen on 0.0.0.0 without a tenants file: exit code 2 and how to configure it', async () => {
    const { POLYMODAL_TENANTS_FILE: _, ...withoutTenants } = env;
    const bin = spawnBin(['--http', '--host', '0.0.0.0', '--port', '0'], {
      ...withoutTenants,
      POLYMODAL_API_KEY: sandbox.apiKey,
    });
    expect(await bin.exited).toBe(2);
    expect(bin.stderr()).toMatch(/refusing to listen on 0\.0\.0\.0 without authentication/);
    expect(bin.stderr()).toMatch(/Set POLYMODAL_TENANTS_FILE to a JSON file/);
    expect(bin.stderr()).not.toMatch(/endpoint at/);
    expect(bin.stderr()).not.toContain(sandbox.apiKey);
  });

  it('in JSON log mode writes every stderr line as one JSON object: the address, the metrics listener, requests, reload, drain and a refused start', async () => {
    const bin = spawnBin(
      ['--http', '--port', '0', '--sessions', '--metrics-port', '0', '--log-format', 'json'],
      {
        ...env,
        POLYMODAL_LOG_LEVEL: 'debug',
      },
    );
    running = { ...bin, url: '' };
    await bin.waitForStderr(/metrics at http:\/\/127\.0\.0\.1:\d+\/metrics/);
    const records = () =>
      bin
        .stderr()
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => {
          let record: unknown;
          expect(() => {
            record = JSON.parse(line);
          }, line).not.toThrow();
          expect(record, line).toMatchObject({
            level: expect.any(String),
            name: expect.any(String),
            msg: expect.any(String),
          });
          return record as { msg: string; url?: string; level: string };
        });
    const endpoint = records().find((record) => record.msg.startsWith('MCP Streamable HTTP endpoint at '));
    expect(endpoint).toMatchObject({
      level: 'info',
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/),
    });
    expect(endpoint?.msg).toMatch(/stateful sessions \(at most 1000, 100 per tenant/);
    const metricsUrl = records().find((record) => record.msg.startsWith('metrics at '))?.url as string;

    // A 2025-11-25 session and a 2026-07-28 client (served per request beside the sessions).
    const teamA = await connect(endpoint?.url as string, TOKEN_A, '2025-11-25');
    const modernA = await connect(endpoint?.url as string, TOKEN_A, '2026-07-28');
    clients.push(teamA, modernA);
    for (const client of [teamA, modernA]) {
      expect((await client.callTool({ name: 'list_jobs', arguments: {} })).isError).toBeFalsy();
    }
    for (const generation of GENERATIONS) {
      await expect(connect(endpoint?.url as string, 'not-a-token', generation), generation).rejects.toThrow(
        /401|unauthorized/i,
      );
    }
    expect((await fetch(metricsUrl)).status).toBe(200);
    const mark = bin.stderr().length;
    bin.child.kill('SIGHUP');
    await bin.waitForStderr(/tenants file reloaded/, mark);
    await teamA.close();
    await modernA.close();
    bin.child.kill('SIGTERM');
    expect(await bin.exited).toBe(0);
    const all = records();
    expect(all.some((record) => record.msg.startsWith('SIGTERM: shutting down'))).toBe(true);
    expect(all.length).toBeGreaterThan(6);
    for (const secret of [TOKEN_A, TOKEN_B, sandbox.apiKey, sandbox.apiKey2]) {
      expect(bin.stderr()).not.toContain(secret);
    }

    // A start refused before listening says why in the same format.
    const { POLYMODAL_TENANTS_FILE: _, ...withoutTenants } = env;
    const refused = spawnBin(['--http', '--host', '0.0.0.0', '--port', '0', '--log-format', 'json'], {
      ...withoutTenants,
      POLYMODAL_API_KEY: sandbox.apiKey,
    });
    expect(await refused.exited).toBe(2);
    const lines = refused
      .stderr()
      .split('\n')
      .filter((line) => line !== '');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      level: 'error',
      msg: expect.stringMatching(/^refusing to listen on 0\.0\.0\.0 without authentication/),
    });
  });

  it('prints its version from package.json with --version', async () => {
    const { version } = JSON.parse(await readFile(path.join(MEETING_PACKAGE, 'package.json'), 'utf8')) as {
      version: string;
    };
    const bin = spawnBin(['--version'], {});
    expect(await bin.exited).toBe(0);
    expect(bin.stdout()).toBe(`${version}\n`);
  });
});

/** Files under `dir` (relative paths) whose text contains `text`. */
async function filesMentioning(dir: string, text: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const found: string[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    if ((await readFile(file, 'utf8')).includes(text)) found.push(path.relative(dir, file));
  }
  return found;
}
