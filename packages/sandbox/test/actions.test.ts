import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../src/index.js';
import { createClient } from './support/sandbox-client.js';

let sandbox: Sandbox;
let client: ReturnType<typeof createClient>;

beforeAll(async () => {
  // Held: only advance() moves the jobs, so a job's progress read before an action is still its progress
  // after it (running, a millisecond of real time between two requests could move it).
  sandbox = await startSandbox({ speed: 1, clock: 'held' });
  client = createClient(sandbox);
});
beforeEach(() => sandbox.control.reset());
afterAll(() => sandbox.close());

/** Moves a fresh job's clock until it shows `status`. */
async function jobIn(status: string, recording = {}): Promise<string> {
  const id = await client.submit(recording);
  for (let step = 0; step < 200; step++) {
    const job = await client.job(id);
    if (job.status === status) return id;
    if (['COMPLETED', 'FAILED'].includes(job.status)) break;
    sandbox.control.advance(250);
  }
  throw new Error(`job never reached ${status}`);
}

async function completed(recording = {}): Promise<string> {
  const id = await client.submit(recording);
  client.finish();
  return id;
}

async function expectConflict(id: string, method: string, json?: Record<string, unknown>) {
  const result = await client.call(method, `/jobs/${id}`, json ? { json } : {});
  expect(result.status, `${method} ${JSON.stringify(json)}`).toBe(409);
  expect(typeof result.body.error).toBe('string');
}

describe('POST /jobs/{id} actions', () => {
  it('cancel stops a running job (409 once processing has stopped)', async () => {
    for (const status of ['PENDING', 'TRANSCRIBING', 'TRANSCRIPT_READY', 'SUMMARIZING']) {
      const id = await jobIn(status);
      const before = await client.job(id);
      expect((await client.action(id, { action: 'cancel' })).body).toEqual({ success: true });
      const after = await client.job(id);
      expect(after.status).toBe('CANCELLED');
      expect(after.progress).toBe(before.progress);
      sandbox.control.advance(600_000);
      expect((await client.job(id)).status).toBe('CANCELLED');
      await expectConflict(id, 'POST', { action: 'cancel' });
    }
    await expectConflict(await completed(), 'POST', { action: 'cancel' });
    const failed = await completed({ fail: 'broken' });
    expect((await client.job(failed)).status).toBe('FAILED');
    await expectConflict(failed, 'POST', { action: 'cancel' });
  });

  it('retry restarts FAILED or CANCELLED jobs and answers 409 in any other state', async () => {
    for (const status of ['PENDING', 'EXTRACTING_AUDIO', 'TRANSCRIPT_READY', 'TRANSLATING']) {
      await expectConflict(await jobIn(status), 'POST', { action: 'retry' });
    }
    await expectConflict(await completed(), 'POST', { action: 'retry' });
    const cancelled = await jobIn('TRANSCRIBING');
    await client.action(cancelled, { action: 'cancel' });
    expect((await client.action(cancelled, { action: 'retry' })).status).toBe(200);
    const restarted = await client.job(cancelled);
    expect(restarted.status).toBe('PENDING');
    expect(restarted.progress).toBe(0);
    client.finish();
    expect((await client.job(cancelled)).status).toBe('COMPLETED');
  });

  it('resummarize and retranslate need stopped processing and a valid transcript (else 409)', async () => {
    for (const action of [{ action: 'resummarize' }, { action: 'retranslate', targetLanguage: 'es' }]) {
      for (const status of ['PENDING', 'TRANSCRIPT_READY', 'SUMMARIZING'])
        await expectConflict(await jobIn(status), 'POST', action);
      // Failed at transcription: no transcript.
      await expectConflict(await completed({ fail: 'no audio stream' }), 'POST', action);
      // Cancelled before the transcript existed.
      const early = await jobIn('EXTRACTING_AUDIO');
      await client.action(early, { action: 'cancel' });
      await expectConflict(early, 'POST', action);
      // Completed, but nothing was said: no valid transcript.
      await expectConflict(await completed({ script: [] }), 'POST', action);
    }
  });

  it('resummarize runs SUMMARIZING again and returns to COMPLETED', async () => {
    const id = await completed();
    const before = await client.job(id);
    expect((await client.action(id, { action: 'resummarize' })).body).toEqual({ success: true });
    const during = await client.job(id);
    expect(during.status).toBe('SUMMARIZING');
    expect(during.transcript).toEqual(before.transcript);
    expect(during.translatedTranscript).toEqual(before.translatedTranscript);
    client.finish();
    const after = await client.job(id);
    expect(after.status).toBe('COMPLETED');
    expect(after.summary).toEqual(before.summary);
  });

  it('retranslate runs TRANSLATING into the new language, then COMPLETED', async () => {
    const id = await completed();
    expect((await client.action(id, { action: 'retranslate', targetLanguage: 'fr' })).status).toBe(200);
    const during = await client.job(id);
    expect(during.status).toBe('TRANSLATING');
    expect(during.translatedTranscript).toBeNull();
    client.finish();
    const after = await client.job(id);
    expect(after.status).toBe('COMPLETED');
    expect(after.targetLanguage).toBe('fr');
    expect(after.translatedTranscript![0]!.text).toBe(`[fr] ${after.transcript![0]!.text}`);
  });

  it('resummarize of a job cancelled after its transcript completes it, translation included', async () => {
    const id = await jobIn('TRANSCRIPT_READY');
    await client.action(id, { action: 'cancel' });
    expect((await client.action(id, { action: 'resummarize' })).status).toBe(200);
    expect((await client.job(id)).status).toBe('TRANSLATING');
    client.finish();
    const job = await client.job(id);
    expect(job.status).toBe('COMPLETED');
    expect(job.translatedTranscript).not.toBeNull();
    expect(job.summary).not.toBeNull();
    expect(job.creditsCharged).toBe(true);
  });

  it('answers 400 for an unknown action, a bad or missing retranslate language, or stray fields', async () => {
    const id = await completed();
    const bodies = [
      { action: 'explode' },
      { action: 'retranslate' },
      { action: 'retranslate', targetLanguage: 'auto' },
      { action: 'retranslate', targetLanguage: 'klingon' },
      { action: 'cancel', targetLanguage: 'es' },
      { action: 'retry', force: true },
      {},
    ];
    for (const json of bodies) {
      const result = await client.action(id, json);
      expect(result.status, JSON.stringify(json)).toBe(400);
      expect(typeof result.body.error).toBe('string');
    }
    expect((await client.job(id)).status).toBe('COMPLETED');
  });

  it('answers 404 for an unknown job id', async () => {
    expect((await client.action('mtg_unknown', { action: 'cancel' })).status).toBe(404);
    expect((await client.call('GET', '/jobs/mtg_unknown')).status).toBe(404);
  });
});

describe('PATCH /jobs/{id}', () => {
  it('renames the recording in any state and answers {job}', async () => {
    const id = await jobIn('PENDING');
    const result = await client.call('PATCH', `/jobs/${id}`, { json: { title: 'Weekly sync' } });
    expect(result.status).toBe(200);
    expect(result.body.job.title).toBe('Weekly sync');
    const listed = await client.call('GET', '/jobs');
    expect(listed.body.jobs[0].title).toBe('Weekly sync');
  });

  it('renames speakers present in the transcript, merging with the defaults', async () => {
    const id = await completed();
    const before = await client.job(id);
    expect(before.speakerNames).toEqual({ S1: 'Speaker 1', S2: 'Speaker 2' });
    const result = await client.call('PATCH', `/jobs/${id}`, { json: { speakerNames: { S2: 'Ben' } } });
    expect(result.status).toBe(200);
    expect(result.body.job.speakerNames).toEqual({ S1: 'Speaker 1', S2: 'Ben' });
    const both = await client.call('PATCH', `/jobs/${id}`, {
      json: { title: 'Release', speakerNames: { S1: 'Ana' } },
    });
    expect(both.body.job).toMatchObject({ title: 'Release', speakerNames: { S1: 'Ana', S2: 'Ben' } });
  });

  it('answers 409 for speaker ids not in the transcript, or before the transcript exists', async () => {
    const id = await completed();
    await expectConflict(id, 'PATCH', { speakerNames: { S1: 'Ana', S9: 'Ghost' } });
    expect((await client.job(id)).speakerNames!.S1).toBe('Speaker 1');
    await expectConflict(await jobIn('TRANSCRIBING'), 'PATCH', { speakerNames: { S1: 'Ana' } });
  });

  it('answers 400 for an empty body, unknown fields or wrong types', async () => {
    const id = await completed();
    for (const json of [
      {},
      { title: '' },
      { title: 7 },
      { speakerNames: { S1: 3 } },
      { speakerNames: 'Ana' },
      { colour: 'red' },
    ]) {
      const result = await client.call('PATCH', `/jobs/${id}`, { json });
      expect(result.status, JSON.stringify(json)).toBe(400);
    }
  });
});

describe('DELETE /jobs/{id}', () => {
  it('answers 409 while processing', async () => {
    for (const status of ['PENDING', 'TRANSCRIBING', 'TRANSCRIPT_READY', 'SUMMARIZING']) {
      await expectConflict(await jobIn(status), 'DELETE');
    }
  });

  it('deletes completed, failed and cancelled recordings; then they are gone (404)', async () => {
    const cancelled = await jobIn('TRANSLATING');
    await client.action(cancelled, { action: 'cancel' });
    for (const id of [await completed(), await completed({ fail: 'bad file' }), cancelled]) {
      const result = await client.call('DELETE', `/jobs/${id}`);
      expect(result.status).toBe(200);
      expect(result.body).toEqual({ success: true });
      expect((await client.call('GET', `/jobs/${id}`)).status).toBe(404);
      expect((await client.call('DELETE', `/jobs/${id}`)).status).toBe(404);
    }
    expect((await client.call('GET', '/jobs')).body.jobs).toEqual([]);
  });
});
