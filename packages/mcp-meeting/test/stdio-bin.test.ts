import { spawn, spawnSync } from 'node:child_process';
import { access, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { type Sandbox, startSandbox, writeMeetingRecording } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHORT_SCRIPT, startHarness } from './support/harness.js';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'index.js');

describe('the built bin over stdio', () => {
  let sandbox: Sandbox;
  let root: string;
  let client: Client;
  let stderr = '';

  beforeAll(async () => {
    await access(BIN).catch(() => {
      throw new Error(
        `${BIN} is missing: build the package first (pnpm turbo run build --filter=@polymodal/mcp-meeting...)`,
      );
    });
    sandbox = await startSandbox({ speed: 100 });
    root = await mkdtemp(path.join(os.tmpdir(), 'mcp-meeting-bin-'));
    await mkdir(path.join(root, 'media'), { recursive: true });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN],
      env: {
        PATH: process.env.PATH ?? '',
        POLYMODAL_BASE_URL: sandbox.url,
        POLYMODAL_API_KEY: sandbox.apiKey,
        POLYMODAL_STATE_DIR: path.join(root, 'state'),
        POLYMODAL_ALLOWED_DIRS: path.join(root, 'media'),
        POLYMODAL_OUTPUT_DIR: path.join(root, 'out'),
      },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    client = new Client({ name: 'bin-test', version: '1.0.0' });
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
    await sandbox?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('summarizes a WAV whose summary items reference transcript segments', async () => {
    const file = path.join(root, 'media', 'standup.wav');
    await writeMeetingRecording(file, { script: SHORT_SCRIPT });
    const summarized = await client.callTool(
      { name: 'summarize_meeting', arguments: { path: file, waitSeconds: 30 } },
      { timeout: 40_000 },
    );
    expect(summarized.isError, JSON.stringify(summarized.content)).toBeFalsy();
    const result = summarized.structuredContent as {
      jobId: string;
      status: string;
      summary: Record<'topics' | 'decisions' | 'actionItems' | 'openQuestions', { segmentIds: string[] }[]>;
    };
    expect(result.status).toBe('COMPLETED');

    const read = await client.callTool({
      name: 'get_meeting',
      arguments: { jobId: result.jobId, include: ['transcript'], maxSegments: 200 },
    });
    const ids = new Set(
      (read.structuredContent as { transcript: { segments: { id: string }[] } }).transcript.segments.map(
        (segment) => segment.id,
      ),
    );
    const { topics, decisions, actionItems, openQuestions } = result.summary;
    const referenced = [...topics, ...decisions, ...actionItems, ...openQuestions].flatMap(
      (item) => item.segmentIds,
    );
    expect(referenced.length).toBeGreaterThan(0);
    for (const id of referenced) expect(ids.has(id), id).toBe(true);
    expect(stderr).not.toContain(sandbox.apiKey);
  }, 45_000);

  it('refuses invalid arguments with the same English message as the server in process', async () => {
    // The bin is bundled with zod's English messages only (its other locales are left out of the bundle).
    const args = { path: 42, sourceLanguage: 'xx', waitSeconds: -5 };
    const bundled = await client.callTool({ name: 'summarize_meeting', arguments: args });
    const harness = await startHarness();
    try {
      const inProcess = await harness.call('summarize_meeting', args);
      expect(bundled.isError).toBe(true);
      expect(inProcess.isError).toBe(true);
      expect(bundled.content).toEqual(inProcess.content);
      expect(inProcess.text).toMatch(/expected string, received number/i);
    } finally {
      await harness.close();
    }
  });

  it('exits 0 on SIGTERM after a paid call (whose ledger write loads lock code that hooks signals too)', async () => {
    const file = path.join(root, 'media', 'sigterm.wav');
    await writeMeetingRecording(file, { script: SHORT_SCRIPT });
    const child = spawn(process.execPath, [BIN], {
      env: {
        PATH: process.env.PATH ?? '',
        POLYMODAL_BASE_URL: sandbox.url,
        POLYMODAL_API_KEY: sandbox.apiKey,
        POLYMODAL_STATE_DIR: path.join(root, 'state-sigterm'),
        POLYMODAL_ALLOWED_DIRS: path.join(root, 'media'),
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    let output = '';
    const answered = new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        if (output.includes('"id":2')) resolve();
      }),
    );
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'sigterm', version: '1' },
      },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'summarize_meeting', arguments: { path: file, waitSeconds: 0 } },
    });
    await answered;
    expect(output).toMatch(/"jobId"/);
    child.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
  }, 30_000);

  it('refuses a POLYMODAL_PROTOCOL it does not know at start, before serving anything (exit 2)', () => {
    const run = spawnSync(process.execPath, [BIN], {
      env: { PATH: process.env.PATH ?? '', POLYMODAL_PROTOCOL: '2026-07-28' },
      input: '',
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('POLYMODAL_PROTOCOL must be "all"');
  });
});
