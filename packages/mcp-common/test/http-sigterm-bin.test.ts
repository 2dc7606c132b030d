/**
 * SIGTERM to the built meeting bin over HTTP while a summarize_meeting call waits on its job (the sandbox's
 * clock held, so the job stays running): the call answers with its handle (done: false, the job id, next)
 * within 10 s instead of being cut off, and the process exits 0. Its stderr is JSON lines (the default over
 * HTTP) carrying the call's request id, without the key. For a client of either protocol generation.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { access, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Sandbox, startSandbox, writeMeetingRecording } from '@polymodal/sandbox';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectHttp } from './support/raw-http.js';
import { GENERATIONS } from './support/server-harness.js';

const BIN = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'mcp-meeting',
  'dist',
  'index.js',
);
const REQUEST_ID = 'sigterm-test.call-1';

describe('the built meeting bin over HTTP on SIGTERM', () => {
  let sandbox: Sandbox;
  let root: string;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    await access(BIN).catch(() => {
      throw new Error(`${BIN} is missing: build it first (pnpm --filter @polymodal/mcp-meeting... build)`);
    });
    sandbox = await startSandbox({ speed: 100 });
    root = await mkdtemp(path.join(os.tmpdir(), 'mcp-sigterm-'));
    await mkdir(path.join(root, 'media'), { recursive: true });
  });
  afterEach(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    sandbox.control.releaseClock();
  });
  afterAll(async () => {
    await sandbox?.close();
    await rm(root, { recursive: true, force: true });
  });

  it.each(GENERATIONS)(
    'a %s client: answers the waiting call with its job handle within 10 s, then exits 0',
    async (generation) => {
      const recording = path.join(root, 'media', `planning-${generation}.wav`);
      await writeMeetingRecording(recording, {
        script: [
          { speaker: 'Alice', text: 'We ship the beta on Friday.' },
          { speaker: 'Bob', text: 'I will write the release notes.' },
        ],
      });
      child = spawn(process.execPath, [BIN, '--http', '--port', '0'], {
        env: {
          PATH: process.env.PATH ?? '',
          POLYMODAL_BASE_URL: sandbox.url,
          POLYMODAL_API_KEY: sandbox.apiKey,
          POLYMODAL_STATE_DIR: path.join(root, `state-${generation}`),
          POLYMODAL_ALLOWED_DIRS: path.join(root, 'media'),
          POLYMODAL_OUTPUT_DIR: path.join(root, 'out'),
          POLYMODAL_POLL_INTERVAL_MS: '50',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
      });
      const exited = new Promise<number | null>((resolve) => child?.once('exit', (code) => resolve(code)));
      await vi.waitFor(() => expect(stderr).toMatch(/endpoint at http:\/\/\S+\/mcp/), { timeout: 15_000 });
      const url = /endpoint at (http:\/\/\S+\/mcp)/.exec(stderr)?.[1] as string;

      const client = await connectHttp(url, {
        generation,
        name: 'sigterm-client',
        headers: { 'x-request-id': REQUEST_ID },
      });
      // Held: the job is created and read, but never advances.
      sandbox.control.holdClock();
      const call = client.callTool(
        { name: 'summarize_meeting', arguments: { path: recording, sourceLanguage: 'en', waitSeconds: 45 } },
        { timeout: 60_000 },
      );
      const readsBefore = sandbox.control.requests({
        method: 'GET',
        path: '/api/conference-summary/v1/jobs/[^/]+$',
      }).length;
      const jobReads = () =>
        sandbox.control
          .requests({ method: 'GET', path: '/api/conference-summary/v1/jobs/[^/]+$' })
          .slice(readsBefore);
      await vi.waitFor(() => expect(jobReads().length).toBeGreaterThanOrEqual(1), {
        timeout: 20_000,
        interval: 50,
      });

      const signalledAt = Date.now();
      child.kill('SIGTERM');
      const result = await call;
      const answeredMs = Date.now() - signalledAt;
      const structured = result.structuredContent as Record<string, unknown>;
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      expect(structured).toMatchObject({ done: false, jobId: expect.stringMatching(/\S/) });
      expect(structured.next).toMatch(new RegExp(`get_meeting with jobId=${String(structured.jobId)}`));
      expect(answeredMs).toBeLessThan(10_000);
      expect(await exited).toBe(0);
      await client.close().catch(() => undefined);
      sandbox.control.releaseClock();

      // JSON lines: the call's own lines carry its request id; no line carries the key.
      const records = stderr
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(records.length).toBeGreaterThan(0);
      expect(records).toContainEqual(
        expect.objectContaining({
          level: 'info',
          msg: expect.stringMatching(/^submitted meeting job /),
          requestId: REQUEST_ID,
        }),
      );
      expect(records).toContainEqual(
        expect.objectContaining({ msg: expect.stringMatching(/^SIGTERM: shutting down/) }),
      );
      expect(stderr).not.toContain(sandbox.apiKey);
    },
    60_000,
  );
});
