/**
 * score_reading and get_reading_score through an MCP client against the sandbox: immediate and queued
 * answers, the no-speech case, file confinement and input checks before any call.
 */
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createReadingRecording, SAMPLE_READING_TEXT } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SpeechHarness, startSpeechHarness } from './support/harness.js';

let harness: SpeechHarness;
beforeAll(async () => {
  harness = await startSpeechHarness();
});
afterAll(() => harness.close());

async function recording(name: string, attempts: string[], secondsPerAttempt?: number) {
  const file = path.join(harness.root, name);
  await writeFile(
    file,
    createReadingRecording({ attempts, ...(secondsPerAttempt ? { secondsPerAttempt } : {}) }),
  );
  return file;
}

const scored = () => harness.sandbox.control.counters().readingScores?.[harness.sandbox.users[0]!.id] ?? 0;

describe('reading score tools', () => {
  it('scores a reading with a missing word: counts, words and what to practise', async () => {
    const file = await recording('missing.wav', ['ฉันชอบหนังสือที่ห้องสมุด']);
    const result = await harness.call('score_reading', {
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
    const result = await harness.call('score_reading', {
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
    // Held: the queued task stays PENDING however slow the machine is, until the clock is released.
    harness.sandbox.control.holdClock();
    const handle = await harness.call('score_reading', {
      studentAudioPath: file,
      referenceText: SAMPLE_READING_TEXT,
      waitSeconds: 0,
    });
    harness.sandbox.control.releaseClock();
    expect(handle.structured).toMatchObject({ done: false, status: 'PENDING' });
    expect(handle.structured.next).toContain('get_reading_score');
    const jobs = await harness.call('list_jobs', {});
    expect(JSON.stringify(jobs.structured)).toContain(handle.structured.jobId);

    const finished = await harness.call('get_reading_score', {
      jobId: handle.structured.jobId,
      waitSeconds: 10,
    });
    expect(finished.isError, finished.text).toBe(false);
    expect(finished.structured).toMatchObject({ done: true, correctWords: 7, referenceWords: 7 });
  });

  it('the identical request again, or at the same time, is scored (and paid) once', async () => {
    const file = await recording('twice.wav', [SAMPLE_READING_TEXT]);
    const before = scored();
    const args = { studentAudioPath: file, referenceText: SAMPLE_READING_TEXT };
    const [first, second] = await Promise.all([
      harness.call('score_reading', args),
      harness.call('score_reading', args),
    ]);
    const again = await harness.call('score_reading', args);
    for (const result of [first, second, again]) {
      expect(result.isError, result.text).toBe(false);
      expect(result.structured).toMatchObject({ done: true, correctWords: 7 });
    }
    expect(again.structured.resumed).toBe(true);
    expect(again.text).toMatch(/scored before/);
    expect(scored() - before).toBe(1);

    const anew = await harness.call('score_reading', { ...args, newJob: true });
    expect(anew.structured.resumed).toBe(false);
    expect(scored() - before).toBe(2);
  });

  it('refuses bad input and files outside the allowed directories before any call', async () => {
    const before = scored();
    const file = await recording('ok.wav', [SAMPLE_READING_TEXT]);
    const outside = path.join(path.dirname(harness.root), `outside-${path.basename(harness.root)}.wav`);
    await writeFile(outside, createReadingRecording({ attempts: [SAMPLE_READING_TEXT] }));

    const both = await harness.call('score_reading', {
      studentAudioPath: file,
      referenceText: 'x',
      referenceAudioPath: file,
    });
    expect(both.isError).toBe(true);
    expect(both.text).toMatch(/exactly one/);
    const denied = await harness.call('score_reading', {
      studentAudioPath: outside,
      referenceText: SAMPLE_READING_TEXT,
    });
    expect(denied.isError).toBe(true);
    expect(denied.text).toMatch(/outside the allowed directories/);
    const missing = await harness.call('score_reading', {
      studentAudioPath: path.join(harness.root, 'nope.wav'),
      referenceText: 'x',
    });
    expect(missing.isError).toBe(true);
    expect(missing.text).toMatch(/does not exist/);
    expect(scored()).toBe(before);
    await rm(outside, { force: true });
  });
});
