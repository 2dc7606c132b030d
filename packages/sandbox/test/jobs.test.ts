import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../src/index.js';
import { createClient } from './support/sandbox-client.js';

let sandbox: Sandbox;
let client: ReturnType<typeof createClient>;

beforeAll(async () => {
  // Held: only advance() moves the jobs, so the states read between two advances are exactly those of the
  // time advanced, however slowly the machine answers (a running clock skipped the 1 s TRANSCRIPT_READY and
  // shortened the counted 20-40 s when the reads took long). reset() holds it again before every test.
  sandbox = await startSandbox({ speed: 1, clock: 'held' });
  client = createClient(sandbox);
});
beforeEach(() => sandbox.control.reset());
afterAll(() => sandbox.close());

describe('POST /jobs validation', () => {
  const invalid: [string, Record<string, unknown>, RegExp][] = [
    ['missing sourceLanguage', { sourceLanguage: undefined }, /sourceLanguage/],
    ['missing targetLanguage', { targetLanguage: undefined }, /targetLanguage/],
    ['unknown source language', { sourceLanguage: 'xx' }, /sourceLanguage/],
    ['auto as target language', { targetLanguage: 'auto' }, /targetLanguage.*auto is not supported/],
    ['unknown engine', { asrEngine: 'whisper' }, /asrEngine/],
    ['noiseReduction not a boolean', { noiseReduction: 'true' }, /noiseReduction must be a boolean/],
    ['minSpeakers not an integer', { minSpeakers: 1.5 }, /minSpeakers/],
    ['minSpeakers negative', { minSpeakers: -1 }, /minSpeakers/],
    ['maxSpeakers above 30', { maxSpeakers: 31 }, /maxSpeakers/],
    [
      'minSpeakers above a nonzero maxSpeakers',
      { minSpeakers: 4, maxSpeakers: 3 },
      /minSpeakers must not exceed maxSpeakers/,
    ],
    ['unknown field', { priority: 'high' }, /unknown field priority/],
    ['uploadReceipt not a string', { uploadReceipt: 42 }, /uploadReceipt/],
  ];
  for (const [name, fields, message] of invalid) {
    it(`answers 400 for ${name}`, async () => {
      const receipt = await client.upload();
      const result = await client.createJob(receipt, fields);
      expect(result.status).toBe(400);
      expect(result.body.error).toMatch(message);
      expect(sandbox.control.counters().jobsCreated).toEqual({});
    });
  }

  it('accepts every optional field at its bounds, and minSpeakers above maxSpeakers 0 (automatic)', async () => {
    const receipt = await client.upload();
    const created = await client.createJob(receipt, {
      sourceLanguage: 'auto',
      targetLanguage: 'zh-tw',
      asrEngine: 'enginetwo_scribe',
      noiseReduction: false,
      minSpeakers: 30,
      maxSpeakers: 0,
    });
    expect(created.status).toBe(201);
  });

  it('answers 400 for a body that is not an object', async () => {
    expect((await client.call('POST', '/jobs', { json: ['x'] })).status).toBe(400);
  });
});

describe('upload receipts', () => {
  it('answers 201 for a new job, then 200 with the same id for the same receipt in any state', async () => {
    const receipt = await client.upload();
    const first = await client.createJob(receipt);
    expect(first.status).toBe(201);
    const again = await client.createJob(receipt, { targetLanguage: 'es' });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    await client.action(first.body.id, { action: 'cancel' });
    const afterCancel = await client.createJob(receipt);
    expect(afterCancel.status).toBe(200);
    expect(afterCancel.body.id).toBe(first.body.id);
    expect(sandbox.control.counters().jobsCreated).toEqual({ user_1: 1 });
  });

  it('answers 400 for a tampered receipt', async () => {
    const receipt = await client.upload();
    const [version, payload, signature] = receipt.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    claims.r = 'upl_someone_else';
    const forged = `${version}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
    for (const bad of [forged, `${receipt}x`, 'garbage', `${version}.${payload}`]) {
      const result = await client.createJob(bad);
      expect(result.status).toBe(400);
      expect(result.body.error).toMatch(/receipt/);
    }
  });

  it('answers 400 for a receipt older than 2 hours on the sandbox clock', async () => {
    const receipt = await client.upload();
    sandbox.control.advance(2 * 60 * 60 * 1000 + 1000);
    const result = await client.createJob(receipt);
    expect(result.status).toBe(400);
    expect(result.body.error).toMatch(/expired/);
  });

  it("answers 400 for another user's receipt", async () => {
    const receipt = await client.upload();
    const result = await client.createJob(receipt, {}, sandbox.apiKey2);
    expect(result.status).toBe(400);
    expect(result.body.error).toMatch(/another account/);
  });

  it('answers 400 for the receipt of a deleted recording', async () => {
    const receipt = await client.upload();
    const id = (await client.createJob(receipt)).body.id;
    client.finish();
    expect((await client.call('DELETE', `/jobs/${id}`)).status).toBe(200);
    const result = await client.createJob(receipt);
    expect(result.status).toBe(400);
    expect(result.body.error).toMatch(/deleted/);
  });
});

describe('credits', () => {
  it('answers 402 without creating a job or touching credits when the balance is short', async () => {
    sandbox.control.setCredits('user_1', 9);
    const receipt = await client.upload();
    const result = await client.createJob(receipt);
    expect(result.status).toBe(402);
    expect(result.body.error).toMatch(/costs 10 credits/);
    expect(sandbox.control.getCredits('user_1')).toBe(9);
    expect(sandbox.control.counters().jobsCreated).toEqual({});
    expect((await client.call('GET', '/jobs')).body.jobs).toEqual([]);
    // With enough credits the same receipt now works.
    sandbox.control.setCredits('user_1', 10);
    expect((await client.createJob(receipt)).status).toBe(201);
  });

  it('charges once on completion, never while processing, and not again on resummarize, retranslate or retry', async () => {
    const id = await client.submit();
    const job = await client.job(id);
    expect(job.credits).toBe(10);
    expect(job.creditsCharged).toBe(false);
    expect(sandbox.control.getCredits('user_1')).toBe(10_000);
    client.finish();
    const done = await client.job(id);
    expect(done.status).toBe('COMPLETED');
    expect(done.creditsCharged).toBe(true);
    expect(sandbox.control.getCredits('user_1')).toBe(9_990);

    for (const body of [{ action: 'resummarize' }, { action: 'retranslate', targetLanguage: 'es' }]) {
      expect((await client.action(id, body)).body).toEqual({ success: true });
      client.finish();
      expect((await client.job(id)).status).toBe('COMPLETED');
    }
    // A rerun cancelled, then retried to completion, is still the same paid recording.
    await client.action(id, { action: 'resummarize' });
    await client.action(id, { action: 'cancel' });
    await client.action(id, { action: 'retry' });
    client.finish();
    expect((await client.job(id)).status).toBe('COMPLETED');
    expect(sandbox.control.getCredits('user_1')).toBe(9_990);
    expect(sandbox.control.counters().creditsCharged).toEqual({ user_1: 10 });
  });

  it('never charges failed or cancelled jobs', async () => {
    const failing = await client.submit({ fail: 'the audio track is corrupt' });
    const cancelled = await client.submit();
    await client.action(cancelled, { action: 'cancel' });
    client.finish();
    expect((await client.job(failing)).status).toBe('FAILED');
    expect((await client.job(cancelled)).status).toBe('CANCELLED');
    expect(sandbox.control.getCredits('user_1')).toBe(10_000);
  });

  it('fails a job whose user ran out of credits before completion, without charging', async () => {
    const id = await client.submit();
    sandbox.control.setCredits('user_1', 3);
    client.finish();
    const job = await client.job(id);
    expect(job.status).toBe('FAILED');
    expect(job.errorMessage).toMatch(/insufficient credits/);
    expect(job.creditsCharged).toBe(false);
    expect(sandbox.control.getCredits('user_1')).toBe(3);
  });

  it('charges the spec rule: max(minimum, 4 x started minutes)', async () => {
    const long = await client.submit({ script: [{ speaker: 'A', text: 'A long monologue.', seconds: 125 }] });
    expect((await client.job(long)).credits).toBe(12);
  });
});

describe('state progression', () => {
  it('moves through the states in order with progress rising to 100, transcript and summary appearing on time', async () => {
    const id = await client.submit({}, { noiseReduction: true });
    const seen: {
      status: string;
      progress: number;
      transcript: boolean;
      translated: boolean;
      summary: boolean;
    }[] = [];
    for (let step = 0; step < 80; step++) {
      const job = await client.job(id);
      seen.push({
        status: job.status,
        progress: job.progress,
        transcript: job.transcript !== null,
        translated: job.translatedTranscript !== null,
        summary: job.summary !== null,
      });
      if (job.status === 'COMPLETED') break;
      sandbox.control.advance(500);
    }
    const order = [
      'PENDING',
      'EXTRACTING_AUDIO',
      'CLEANING_AUDIO',
      'TRANSCRIBING',
      'TRANSCRIPT_READY',
      'TRANSLATING',
      'SUMMARIZING',
      'COMPLETED',
    ];
    const statuses = seen
      .map((entry) => entry.status)
      .filter((status, index, all) => all[index - 1] !== status);
    expect(statuses).toEqual(order);
    for (let index = 1; index < seen.length; index++) {
      expect(seen[index]!.progress).toBeGreaterThanOrEqual(seen[index - 1]!.progress);
    }
    expect(seen[0]!.progress).toBe(0);
    expect(seen.at(-1)!.progress).toBe(100);
    for (const entry of seen) {
      const at = order.indexOf(entry.status);
      expect(entry.transcript).toBe(at >= order.indexOf('TRANSCRIPT_READY'));
      expect(entry.translated).toBe(at >= order.indexOf('SUMMARIZING'));
      expect(entry.summary).toBe(entry.status === 'COMPLETED');
    }
  });

  it('skips CLEANING_AUDIO without noise reduction and completes a 1-minute recording in 20-40 s at speed 1', async () => {
    const id = await client.submit(
      { script: [{ speaker: 'A', text: 'One minute of talk.', seconds: 59 }] },
      { noiseReduction: false },
    );
    let elapsed = 0;
    const statuses = new Set<string>();
    for (;;) {
      const job = await client.job(id);
      statuses.add(job.status);
      if (job.status === 'COMPLETED') break;
      sandbox.control.advance(1000);
      elapsed += 1000;
    }
    expect(statuses.has('CLEANING_AUDIO')).toBe(false);
    expect(elapsed).toBeGreaterThanOrEqual(20_000);
    expect(elapsed).toBeLessThanOrEqual(40_000);
  });

  it('runs in real time scaled by speed', async () => {
    const fast = await startSandbox({ speed: 200 });
    try {
      const fastClient = createClient(fast);
      const id = await fastClient.submit();
      const started = Date.now();
      let job = await fastClient.job(id);
      while (job.status !== 'COMPLETED' && Date.now() - started < 5_000) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        job = await fastClient.job(id);
      }
      expect(job.status).toBe('COMPLETED');
    } finally {
      await fast.close();
    }
  });

  it('fails a recording marked to fail, with errorMessage, and a retry succeeds when only the first attempt fails', async () => {
    const id = await client.submit({ fail: 'speech service error: decoder crashed', failAttempts: 1 });
    client.finish();
    const failed = await client.job(id);
    expect(failed.status).toBe('FAILED');
    expect(failed.errorMessage).toBe('speech service error: decoder crashed');
    expect(failed.transcript).toBeNull();
    expect(failed.summary).toBeNull();
    expect((await client.action(id, { action: 'retry' })).status).toBe(200);
    const retried = await client.job(id);
    expect(retried.status).toBe('PENDING');
    expect(retried.errorMessage).toBeNull();
    client.finish();
    expect((await client.job(id)).status).toBe('COMPLETED');
  });

  it('completes a recording without speech with an empty transcript and a warning', async () => {
    const id = await client.submit({ script: [] });
    client.finish();
    const job = await client.job(id);
    expect(job.status).toBe('COMPLETED');
    expect(job.transcript).toEqual([]);
    expect(job.warning).toMatch(/No speech/);
    expect(job.summary!.actionItems).toEqual([]);
  });
});

describe('GET /jobs', () => {
  it('lists the newest 100 headers of the caller only, with maxUploadBytes and pricing', async () => {
    const receipts: string[] = [];
    for (let index = 0; index < 103; index++)
      receipts.push(await client.upload({ script: [{ speaker: 'A', text: `Item ${index}.` }] }));
    const ids: string[] = [];
    for (const receipt of receipts) ids.push((await client.createJob(receipt)).body.id);
    await client.submit({}, {}, sandbox.apiKey2);
    const list = await client.call('GET', '/jobs');
    expect(list.status).toBe(200);
    expect(list.body.jobs).toHaveLength(100);
    expect(list.body.jobs.map((job: { id: string }) => job.id)).toEqual(ids.slice(3).reverse());
    expect(Object.keys(list.body.jobs[0]).sort()).toEqual([
      'createdAt',
      'credits',
      'id',
      'progress',
      'status',
      'title',
    ]);
    expect(list.body.maxUploadBytes).toBe(2 * 1024 * 1024 * 1024);
    expect(list.body.pricing).toEqual({
      minimumCredits: 10,
      creditsPerStartedMinute: 4,
      currency: 'credits',
    });
  });
});
