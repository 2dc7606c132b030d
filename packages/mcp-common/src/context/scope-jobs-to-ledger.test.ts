import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Polymodal } from '@polymodal/core';
import { NotFoundError } from '@polymodal/core/errors';
import { createJobLedger } from '@polymodal/core/ledger';
import { afterEach, describe, expect, it } from 'vitest';
import { scopeJobsToLedger } from './scope-jobs-to-ledger.js';

let root: string | undefined;
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
  root = undefined;
});

/** A client whose every method only records that it was called: what would have reached the platform. */
function recordingClient(calls: string[], name: string, methods: string[]): Record<string, unknown> {
  return Object.fromEntries(
    methods.map((method) => [
      method,
      async (...args: unknown[]) => {
        calls.push(`${name}.${method}(${String(args[0])})`);
        return method === 'list' ? { jobs: [{ id: 'mine' }, { id: 'theirs' }], pricing: {} } : 'ok';
      },
    ]),
  );
}

async function setUp(shared: { value: boolean }) {
  root = await mkdtemp(path.join(os.tmpdir(), 'scope-jobs-'));
  const ledger = createJobLedger({ dir: root });
  const now = new Date().toISOString();
  for (const [service, id] of [
    ['meeting', 'mine'],
    ['catalog-video', 'video-1'],
    ['image-to-video', 'image-1'],
    ['flashcards', 'cards-1'],
    ['speech-synthesis', 'task-1'],
    ['reading-score', 'score-1'],
  ] as const) {
    await ledger.insert({ service, fingerprint: `fp-${id}`, id, lastStatus: 'RUNNING', createdAt: now });
  }
  const calls: string[] = [];
  const byId = ['retrieve', 'poll', 'wait'];
  let limitReads = 0;
  const flashcards = recordingClient(calls, 'flashcards', [...byId, 'startFromUrl']);
  Object.defineProperty(flashcards, 'limits', {
    get: () => {
      limitReads += 1;
      return { maxVideoSeconds: limitReads };
    },
  });
  const polymodal = {
    meeting: recordingClient(calls, 'meeting', ['list', 'retrieve', 'cancel', 'delete', 'poll', 'submit']),
    catalogVideo: recordingClient(calls, 'catalogVideo', [...byId, 'models']),
    imageToVideo: recordingClient(calls, 'imageToVideo', byId),
    flashcards,
    speech: recordingClient(calls, 'speech', [
      ...byId,
      'listVoices',
      'synthesizeText',
      'submit',
      'synthesize',
      'startTextJob',
      'retrieveTextJob',
    ]),
    readingScore: recordingClient(calls, 'readingScore', ['retrieve', 'poll', 'wait']),
    llm: { marker: 'llm' },
  } as unknown as Polymodal;
  const scoped = scopeJobsToLedger(polymodal, { ledger, isShared: () => shared.value });
  return { scoped, calls, polymodal, ledger };
}

describe('scopeJobsToLedger', () => {
  it('refuses, as not found and without calling the client, every job id the ledger does not hold', async () => {
    const { scoped, calls } = await setUp({ value: true });
    const foreign: (() => Promise<unknown>)[] = [
      () => scoped.meeting.retrieve('theirs'),
      () => scoped.meeting.cancel('theirs'),
      () => scoped.meeting.delete('theirs'),
      () => scoped.meeting.poll('theirs', { deadline: 0 }),
      // An id of the ledger, but of another service.
      () => scoped.meeting.retrieve('video-1'),
      () => scoped.catalogVideo.retrieve('theirs'),
      () => scoped.catalogVideo.poll('theirs', { deadline: 0 }),
      () => scoped.imageToVideo.wait('theirs'),
      () => scoped.flashcards.retrieve('theirs'),
      () => scoped.speech.poll('theirs', { deadline: 0 }),
      () => scoped.readingScore.retrieve('theirs'),
      () => scoped.readingScore.retrieve('/api/reading/v1/task/theirs'),
      () => scoped.readingScore.wait(''),
    ];
    for (const attempt of foreign) {
      const error = await attempt().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(NotFoundError.isInstance(error)).toBe(true);
    }
    expect(calls).toEqual([]);
  });

  it("passes the ledger's own jobs and the methods that take no job id through", async () => {
    const { scoped, calls, polymodal } = await setUp({ value: true });
    await scoped.meeting.retrieve('mine');
    await scoped.catalogVideo.retrieve('video-1');
    await scoped.imageToVideo.retrieve('image-1');
    await scoped.flashcards.poll('cards-1', { deadline: 0 });
    await scoped.speech.wait('task-1');
    await scoped.readingScore.retrieve('/api/reading/v1/task/score-1');
    await scoped.catalogVideo.models();
    await scoped.speech.listVoices();
    expect(calls).toEqual([
      'meeting.retrieve(mine)',
      'catalogVideo.retrieve(video-1)',
      'imageToVideo.retrieve(image-1)',
      'flashcards.poll(cards-1)',
      'speech.wait(task-1)',
      'readingScore.retrieve(/api/reading/v1/task/score-1)',
      'catalogVideo.models(undefined)',
      'speech.listVoices(undefined)',
    ]);
    // Properties stay live, and clients without jobs are the same objects.
    expect(scoped.flashcards.limits).toEqual({ maxVideoSeconds: 1 });
    expect(scoped.flashcards.limits).toEqual({ maxVideoSeconds: 2 });
    expect(scoped.llm).toBe(polymodal.llm);
  });

  it('looks a job id up in the ledger once it was found there, and an id not found every time, so a job recorded later is reached at once', async () => {
    const { polymodal, ledger, calls } = await setUp({ value: true });
    const lookedUp: string[] = [];
    const scoped = scopeJobsToLedger(polymodal, {
      ledger: {
        ...ledger,
        findById: (service, id) => {
          lookedUp.push(`${service}/${id}`);
          return ledger.findById(service, id);
        },
      },
      isShared: () => true,
    });
    for (let read = 0; read < 3; read++) await scoped.meeting.poll('mine', { deadline: 0 });
    expect(lookedUp).toEqual(['meeting/mine']);
    // Not found, and not remembered as such: each call looks again, and the id recorded meanwhile is served.
    await expect(scoped.meeting.retrieve('later')).rejects.toThrow(/not in this tenant's job ledger/);
    await expect(scoped.meeting.retrieve('later')).rejects.toThrow(/not in this tenant's job ledger/);
    await ledger.insert({ service: 'meeting', fingerprint: 'fp-later', id: 'later', lastStatus: 'RUNNING' });
    await scoped.meeting.retrieve('later');
    await scoped.meeting.retrieve('later');
    expect(lookedUp).toEqual(['meeting/mine', 'meeting/later', 'meeting/later', 'meeting/later']);
    // An id known for one service is not thereby known for another.
    await expect(scoped.catalogVideo.retrieve('mine')).rejects.toThrow(/not in this tenant's job ledger/);
    expect(calls).toEqual([
      'meeting.poll(mine)',
      'meeting.poll(mine)',
      'meeting.poll(mine)',
      'meeting.retrieve(later)',
      'meeting.retrieve(later)',
    ]);
  });

  it("lists only the ledger's own meetings while shared, and everything once the key is the tenant's own", async () => {
    const shared = { value: true };
    const { scoped, calls } = await setUp(shared);
    expect(await scoped.meeting.list()).toEqual({ jobs: [{ id: 'mine' }], pricing: {} });
    shared.value = false;
    expect(await scoped.meeting.list()).toEqual({ jobs: [{ id: 'mine' }, { id: 'theirs' }], pricing: {} });
    expect(await scoped.meeting.retrieve('theirs')).toBe('ok');
    expect(calls).toEqual(['meeting.list(undefined)', 'meeting.list(undefined)', 'meeting.retrieve(theirs)']);
  });

  it('uses a registered voice only when this tenant registered it, while the key is shared', async () => {
    const shared = { value: true };
    const { scoped, calls, ledger } = await setUp(shared);
    await ledger.insert({
      service: 'custom-voice',
      fingerprint: 'fp-voice',
      id: 'voice-1',
      lastStatus: 'REGISTERED',
      request: { voice: { clone_audio: 'custom_voices/mine.wav' } },
    });
    const theirs = { text: 'Hello.', clone_audio: 'custom_voices/theirs.wav' };
    // A speech-text job recorded with that voice (e.g. while the key was the tenant's own) would run it again.
    await ledger.insert({
      service: 'speech-text',
      fingerprint: 'fp-text',
      id: 'speech_theirs',
      lastStatus: 'ERROR',
      request: { speech: theirs, fileName: 'speech_theirs.wav' },
    });
    for (const speak of [
      () => scoped.speech.synthesizeText(theirs),
      () => scoped.speech.submit(theirs),
      () => scoped.speech.synthesize(theirs),
      () => scoped.speech.startTextJob(theirs),
      () => scoped.speech.retrieveTextJob('speech_theirs'),
    ]) {
      await expect(speak()).rejects.toThrow(/custom_voices\/theirs\.wav was not registered by this tenant/);
    }
    expect(calls).toEqual([]);
    await scoped.speech.synthesizeText({ text: 'Hello.', clone_audio: 'custom_voices/mine.wav' });
    await scoped.speech.synthesizeText({ text: 'Hello.', clone_audio: 'https://cdn.example/own.wav' });
    await scoped.speech.synthesizeText({ text: 'Hello.' });
    // A handle the ledger does not hold reaches the client, which answers it as unknown.
    await scoped.speech.retrieveTextJob('speech_unknown');
    shared.value = false;
    await scoped.speech.synthesizeText(theirs);
    await scoped.speech.retrieveTextJob('speech_theirs');
    expect(calls).toHaveLength(6);
  });
});
