/**
 * @polymodal/core's meeting client against the sandbox over real HTTP: the lifecycle, receipts, another
 * user's recording, credits, and a connection reset after the job was created (exactly one job).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  ApiError,
  createFileAccess,
  createPolymodal,
  InsufficientCreditsError,
  NotFoundError,
  type Polymodal,
} from '@polymodal/core';
import { createJobLedger } from '@polymodal/core/ledger';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createThaiSpeech,
  type Sandbox,
  startSandbox,
  THAI_PHRASES,
  writeMeetingRecording,
} from '../src/index.js';
import { SHORT_SCRIPT } from './support/sandbox-client.js';

let sandbox: Sandbox;
let dir: string;
let file: string;
const opened: Polymodal[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ speed: 200 });
  dir = await mkdtemp(path.join(os.tmpdir(), 'core-vs-sandbox-'));
  file = path.join(dir, 'meeting.wav');
  await writeMeetingRecording(file, { script: SHORT_SCRIPT });
});
beforeEach(() => sandbox.control.reset());
afterEach(async () => {
  await Promise.all(opened.splice(0).map((client) => client.close()));
});
afterAll(async () => {
  await sandbox.close();
  await rm(dir, { recursive: true, force: true });
});

function client(key = sandbox.apiKey, stateDir?: string): Polymodal {
  const polymodal = createPolymodal({
    baseUrl: sandbox.url,
    apiKey: key,
    ledger: stateDir ? createJobLedger({ dir: stateDir }) : false,
    files: createFileAccess({ allowedDirs: [dir], outputDir: path.join(dir, 'out') }),
    pollIntervalMs: 20,
    http: { baseDelayMs: 5, maxDelayMs: 20 },
  });
  opened.push(polymodal);
  return polymodal;
}

const jobsCreated = () => Object.values(sandbox.control.counters().jobsCreated).reduce((a, b) => a + b, 0);

describe('core meeting client against the sandbox', () => {
  it('summarises a recording end to end and charges once', async () => {
    const { meeting } = client();
    const before = sandbox.control.getCredits('user_1');
    const job = await meeting.summarize({
      file,
      sourceLanguage: 'en',
      targetLanguage: 'th',
      title: 'Release sync',
    });
    expect(job).toMatchObject({ status: 'COMPLETED', title: 'Release sync', creditsCharged: true });
    const ids = new Set(job.transcript?.map((segment) => segment.id));
    for (const item of job.summary?.actionItems ?? [])
      for (const id of item.segmentIds) expect(ids.has(id)).toBe(true);
    expect(sandbox.control.getCredits('user_1')).toBe(before - (job.credits ?? 0));
    await meeting.retranslate(job.id, { targetLanguage: 'ja' });
    const again = await meeting.wait(job.id);
    expect(again.status).toBe('COMPLETED');
    expect(sandbox.control.getCredits('user_1')).toBe(before - (job.credits ?? 0));
  });

  it('resubmitting a receipt returns the same job; a tampered receipt is refused', async () => {
    const { meeting } = client();
    const { uploadReceipt } = await meeting.upload(file);
    const first = await meeting.create({ uploadReceipt, sourceLanguage: 'en', targetLanguage: 'en' });
    const second = await meeting.create({ uploadReceipt, sourceLanguage: 'en', targetLanguage: 'en' });
    expect(first.created).toBe(true);
    expect(second).toEqual({ id: first.id, created: false });
    const tampered = `${uploadReceipt.slice(0, -2)}${uploadReceipt.endsWith('aa') ? 'bb' : 'aa'}`;
    const refused = meeting.create({ uploadReceipt: tampered, sourceLanguage: 'en', targetLanguage: 'en' });
    await expect(refused).rejects.toSatisfy((error) => ApiError.isInstance(error) && error.status === 400);
    expect(jobsCreated()).toBe(1);
  });

  it("reports another user's recording as not found", async () => {
    const { id } = await client().meeting.submit({ file, sourceLanguage: 'en', targetLanguage: 'en' });
    await expect(client(sandbox.apiKey2).meeting.retrieve(id)).rejects.toSatisfy(NotFoundError.isInstance);
  });

  it('402 when credits are short: no job, nothing charged', async () => {
    sandbox.control.setCredits('user_1', 1);
    const attempt = client().meeting.submit({ file, sourceLanguage: 'en', targetLanguage: 'en' });
    await expect(attempt).rejects.toSatisfy(InsufficientCreditsError.isInstance);
    expect(jobsCreated()).toBe(0);
    expect(sandbox.control.getCredits('user_1')).toBe(1);
  });

  it('a connection reset after the job was created still yields exactly one job', async () => {
    sandbox.control.setFaults([{ match: { method: 'POST', path: '/jobs$' }, kind: 'reset-after', count: 1 }]);
    const stateDir = path.join(dir, 'state-reset');
    const submitted = await client(sandbox.apiKey, stateDir).meeting.submit({
      file,
      sourceLanguage: 'en',
      targetLanguage: 'en',
    });
    expect(jobsCreated()).toBe(1);
    expect(sandbox.control.counters().faults['reset-after']).toBe(1);
    // A later run with the same ledger resumes the job instead of uploading again.
    const resumed = await client(sandbox.apiKey, stateDir).meeting.submit({
      file,
      sourceLanguage: 'en',
      targetLanguage: 'en',
    });
    expect(resumed).toMatchObject({ id: submitted.id, resumed: true });
    expect(jobsCreated()).toBe(1);
    expect(Object.values(sandbox.control.counters().uploads).reduce((a, b) => a + b, 0)).toBe(1);
  });

  it('transcribes a 44.1 kHz WAV through the streaming recogniser, with captions on the way', async () => {
    const audio = path.join(dir, 'thai.wav');
    const phrases = [THAI_PHRASES[0], THAI_PHRASES[3]];
    await writeFile(audio, createThaiSpeech({ phrases, sampleRate: 44_100 }));
    const captions: string[] = [];
    const result = await client().thaiAsr.transcribe({
      file: audio,
      speed: 0,
      onCaption: (text) => captions.push(text),
    });
    expect(result.text).toBe(phrases.join(' '));
    expect(result.segments.map((segment) => segment.text)).toEqual(phrases);
    expect(captions[0]).toBe(phrases[0]);
    expect(captions.at(-1)).toBe(phrases.join(' '));
    expect(result.audioSeconds).toBeGreaterThan(2);
  });

  it('creates sessions on the platform host and checks session fields before sending', async () => {
    const polymodal = client();
    const session = await polymodal.thaiAsr.createSession();
    expect(session.ws_url).toContain(new URL(sandbox.url).host);
    await expect(polymodal.thaiAsr.createSession({ sample_rate: 1 })).rejects.toThrow(/sample_rate/);
  });
});
