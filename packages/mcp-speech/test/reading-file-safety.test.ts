/**
 * What score_reading reads, tried as a careless agent would: a WAV that is a header and junk, a recording
 * of gigabytes, a FIFO. Each is refused before any request (a junk WAV used to be scored, and paid for),
 * and the server keeps serving.
 */
import { execFileSync } from 'node:child_process';
import { truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { riffWaveJunk } from '@polymodal/core/testing';
import { createReadingRecording, SAMPLE_READING_TEXT } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SpeechHarness, startSpeechHarness } from './support/harness.js';

let harness: SpeechHarness;
beforeAll(async () => {
  harness = await startSpeechHarness();
});
afterAll(() => harness.close());

const requestCount = () => harness.sandbox.control.requests().length;

describe('score_reading checks the recordings before sending them', () => {
  it('refuses a WAV of junk, as the student or the reference recording, with no request', async () => {
    const junk = path.join(harness.root, 'junk.wav');
    const good = path.join(harness.root, 'good.wav');
    await writeFile(junk, riffWaveJunk(8000));
    await writeFile(good, createReadingRecording({ attempts: [SAMPLE_READING_TEXT] }));
    const before = requestCount();
    const student = await harness.call('score_reading', {
      studentAudioPath: junk,
      referenceText: SAMPLE_READING_TEXT,
    });
    expect(student.isError).toBe(true);
    expect(student.text).toMatch(/studentAudio: .*junk\.wav is damaged: no valid RIFF chunk/);
    expect(student.text).toContain('Nothing was sent.');
    const reference = await harness.call('score_reading', {
      studentAudioPath: good,
      referenceAudioPath: junk,
    });
    expect(reference.isError).toBe(true);
    expect(reference.text).toMatch(/referenceAudio: .*junk\.wav is damaged/);
    expect(requestCount()).toBe(before);
  });

  it('refuses a 20 GB recording locally (a sparse file: no disk space used)', async () => {
    const huge = path.join(harness.root, 'huge.wav');
    await writeFile(huge, createReadingRecording({ attempts: [SAMPLE_READING_TEXT] }));
    await truncate(huge, 20 * 1024 ** 3);
    const before = requestCount();
    const result = await harness.call('score_reading', {
      studentAudioPath: huge,
      referenceText: SAMPLE_READING_TEXT,
    });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/huge\.wav is 20480\.0 MB, over the 50 MB limit for a reading recording/);
    expect(requestCount()).toBe(before);
  });

  it('refuses a FIFO at once, and the next reading is scored', async () => {
    const fifo = path.join(harness.root, 'microphone.wav');
    execFileSync('mkfifo', [fifo]);
    const before = requestCount();
    const refused = await harness.call('score_reading', {
      studentAudioPath: fifo,
      referenceText: SAMPLE_READING_TEXT,
    });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/microphone\.wav is a named pipe/);
    expect(requestCount()).toBe(before);

    const file = path.join(harness.root, 'after-fifo.wav');
    await writeFile(file, createReadingRecording({ attempts: [SAMPLE_READING_TEXT] }));
    const next = await harness.call('score_reading', {
      studentAudioPath: file,
      referenceText: SAMPLE_READING_TEXT,
    });
    expect(next.isError, next.text).toBe(false);
    expect(next.structured).toMatchObject({ done: true, passed: true });
  });
});
