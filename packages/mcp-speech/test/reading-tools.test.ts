/**
 * score_reading and get_reading_score through an MCP client against the sandbox: immediate and queued
 * answers, the no-speech case, file confinement and input checks before any call.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createReadingRecording, SAMPLE_READING_TEXT, type Sandbox, startSandbox } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../src/server.js';

let sandbox: Sandbox;
let root: string;
let media: string;
let client: Client;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  sandbox = await startSandbox({ speed: 100 });
  root = await mkdtemp(path.join(os.tmpdir(), 'mcp-reading-'));
  media = path.join(root, 'media');
  await mkdir(media);
  const instance = createServer({
    env: {
      POLYMODAL_BASE_URL: sandbox.url,
      POLYMODAL_API_KEY: sandbox.apiKey,
      POLYMODAL_STATE_DIR: path.join(root, 'state'),
      POLYMODAL_ALLOWED_DIRS: media,
      POLYMODAL_OUTPUT_DIR: path.join(root, 'out'),
      POLYMODAL_LOG_LEVEL: 'error',
    },
    pollIntervalMs: 20,
  });
  client = new Client({ name: 'test', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await instance.server.connect(serverSide);
  await client.connect(clientSide);
  cleanup = async () => {
    await client.close();
    await instance.cleanup();
  };
});
afterAll(async () => {
  await cleanup();
  await sandbox.close();
  await rm(root, { recursive: true, force: true });
});

async function call(name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(JSON.stringify(result)).not.toContain(sandbox.apiKey);
  const text = result.content.map((item) => (item.type === 'text' ? item.text : '')).join('\n');
  return {
    isError: result.isError === true,
    text,
    structured: result.structuredContent as Record<string, any>,
  };
}

async function recording(name: string, attempts: string[], secondsPerAttempt?: number) {
  const file = path.join(media, name);
  await writeFile(
    file,
    createReadingRecording({ attempts, ...(secondsPerAttempt ? { secondsPerAttempt } : {}) }),
  );
  return file;
}

const scored = () => sandbox.control.counters().readingScores?.[sandbox.users[0]!.id] ?? 0;

describe('reading score tools', () => {
  it('scores a reading with a missing word: counts, words and what to practise', async () => {
    const file = await recording('missing.wav', ['ฉันชอบหนังสือที่ห้องสมุด']);
    const result = await call('score_reading', {
      studentAudioPath: file,
      referenceText: SAMPLE_READING_TEXT,
    });
    expect(result.isError, result.text).toBe(false);
    expect(result.text).toMatch(/^6 of 7 words correct; practise: อ่าน\./);
    expect(result.structured).toMatchObject({
      done: true,
      passed: true,
      correctWords: 6,
      referenceWords: 7,
      feedback: { missingWords: ['อ่าน'], practise: ['อ่าน'] },
    });
    expect(result.structured.words).toContainEqual({
      status: 'missing',
      expected: 'อ่าน',
      heard: null,
      confidence: null,
    });
  });

  it('says plainly when no speech was heard', async () => {
    const file = await recording('silence.wav', []);
    const result = await call('score_reading', {
      studentAudioPath: file,
      referenceText: SAMPLE_READING_TEXT,
    });
    expect(result.text).toMatch(/No speech was detected/);
    expect(result.structured).toMatchObject({
      passed: false,
      assessment: 'no_speech',
      scores: { overall: 0 },
    });
  });

  it('waits for a queued score, or hands back a job to continue with get_reading_score', async () => {
    const file = await recording('long.wav', [SAMPLE_READING_TEXT], 25);
    const handle = await call('score_reading', {
      studentAudioPath: file,
      referenceText: SAMPLE_READING_TEXT,
      waitSeconds: 0,
    });
    expect(handle.structured).toMatchObject({ done: false, status: 'PENDING' });
    expect(handle.structured.next).toContain('get_reading_score');
    const jobs = await call('list_jobs', {});
    expect(JSON.stringify(jobs.structured)).toContain(handle.structured.jobId);

    const finished = await call('get_reading_score', { jobId: handle.structured.jobId, waitSeconds: 10 });
    expect(finished.isError, finished.text).toBe(false);
    expect(finished.structured).toMatchObject({ done: true, correctWords: 7, referenceWords: 7 });
  });

  it('refuses bad input and files outside the allowed directories before any call', async () => {
    const before = scored();
    const file = await recording('ok.wav', [SAMPLE_READING_TEXT]);
    const outside = path.join(root, 'outside.wav');
    await writeFile(outside, createReadingRecording({ attempts: [SAMPLE_READING_TEXT] }));

    const both = await call('score_reading', {
      studentAudioPath: file,
      referenceText: 'x',
      referenceAudioPath: file,
    });
    expect(both.isError).toBe(true);
    expect(both.text).toMatch(/exactly one/);
    const denied = await call('score_reading', {
      studentAudioPath: outside,
      referenceText: SAMPLE_READING_TEXT,
    });
    expect(denied.isError).toBe(true);
    expect(denied.text).toMatch(/outside the allowed directories/);
    const missing = await call('score_reading', {
      studentAudioPath: path.join(media, 'nope.wav'),
      referenceText: 'x',
    });
    expect(missing.isError).toBe(true);
    expect(missing.text).toMatch(/does not exist/);
    expect(scored()).toBe(before);
  });
});
