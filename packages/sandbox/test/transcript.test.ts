import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMeetingRecording, SAMPLE_MEETING_SCRIPT, type Sandbox, startSandbox } from '../src/index.js';
import { createClient, type JobView } from './support/sandbox-client.js';

let sandbox: Sandbox;
let client: ReturnType<typeof createClient>;

beforeAll(async () => {
  sandbox = await startSandbox({ speed: 1 });
  client = createClient(sandbox);
});
afterAll(() => sandbox.close());

async function completedJob(bytes: Buffer, fields: Record<string, unknown> = {}, filename = 'meeting.wav') {
  const uploaded = await client.uploadBytes(bytes, filename);
  expect(uploaded.status).toBe(201);
  const created = await client.createJob(uploaded.body.uploadReceipt, fields);
  expect(created.status).toBe(201);
  client.finish();
  const job = await client.job(created.body.id);
  expect(job.status).toBe('COMPLETED');
  return { job, durationSeconds: uploaded.body.durationSeconds as number };
}

/** Everything a client relies on: ids referenced exist, times inside the duration, translation aligned. */
function expectConsistent(job: JobView, durationSeconds: number) {
  const transcript = job.transcript!;
  const ids = new Set(transcript.map((segment) => segment.id));
  expect(ids.size).toBe(transcript.length);
  transcript.forEach((segment, index) => {
    expect(segment.id).toBe(`seg_${String(index + 1).padStart(4, '0')}`);
    expect(segment.start).toBeGreaterThanOrEqual(0);
    expect(segment.end).toBeGreaterThanOrEqual(segment.start);
    expect(segment.end).toBeLessThanOrEqual(durationSeconds);
    expect(segment.text.length).toBeGreaterThan(0);
  });
  expect(job.translatedTranscript!.map(({ text: _text, ...rest }) => rest)).toEqual(
    transcript.map(({ text: _text, ...rest }) => rest),
  );
  const summary = job.summary!;
  for (const item of [
    ...summary.topics,
    ...summary.decisions,
    ...summary.actionItems,
    ...summary.openQuestions,
  ]) {
    expect(item.segmentIds.length).toBeGreaterThan(0);
    for (const id of item.segmentIds) expect(ids.has(id)).toBe(true);
  }
  const speakers = new Set(transcript.map((segment) => segment.speakerId));
  for (const item of summary.actionItems) expect(speakers.has(item.ownerSpeakerId!)).toBe(true);
  expect(Object.keys(job.speakerNames!).sort()).toEqual([...speakers].sort());
}

describe('transcripts and summaries', () => {
  it('turns the sample script into a matching transcript, translation and summary', async () => {
    const { job, durationSeconds } = await completedJob(
      createMeetingRecording({ script: SAMPLE_MEETING_SCRIPT }),
    );
    expectConsistent(job, durationSeconds);
    expect(job.transcript!.map((segment: { text: string }) => segment.text)).toEqual(
      SAMPLE_MEETING_SCRIPT.map((line) => line.text),
    );
    expect(new Set(job.transcript!.map((segment: { speakerId: string }) => segment.speakerId))).toEqual(
      new Set(['S1', 'S2', 'S3']),
    );
    // Maya speaks first and last: the same speaker id.
    expect(job.transcript![0]!.speakerId).toBe(job.transcript!.at(-1)!.speakerId);
    expect(job.translatedTranscript![0]!.text).toMatch(/[\u0E00-\u0E7F]/);
    expect(job.summary!.topics.map((topic: { text: string }) => topic.text)).toEqual([
      'Mobile checkout launch',
      'Onboarding emails',
      'Pricing page',
    ]);
    expect(job.summary!.decisions).toHaveLength(3);
    expect(job.summary!.openQuestions).toHaveLength(3);
    expect(job.summary!.actionItems).toHaveLength(4);
    for (const item of job.summary!.actionItems) expect(item.dueDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(job.summary!.overview).toMatch(/3 speakers/);
  });

  it('keeps the number of speakers within minSpeakers..maxSpeakers', async () => {
    const bytes = createMeetingRecording({ script: SAMPLE_MEETING_SCRIPT });
    for (const [minSpeakers, maxSpeakers, expected] of [
      [0, 2, 2],
      [5, 0, 5],
      [1, 1, 1],
      [4, 6, 4],
    ] as const) {
      const { job, durationSeconds } = await completedJob(bytes, { minSpeakers, maxSpeakers });
      expectConsistent(job, durationSeconds);
      expect(new Set(job.transcript!.map((segment: { speakerId: string }) => segment.speakerId)).size).toBe(
        expected,
      );
    }
  });

  it('fills recordings without a script from the phrase bank, deterministically per file, across the real duration', async () => {
    const plain = Buffer.from(createMeetingRecording({ script: [{ speaker: 'A', text: 'x', seconds: 40 }] }));
    // Drop the script chunk's id so the sandbox sees a plain WAV (same audio, same duration).
    plain.write('junk', plain.indexOf('pmtx'), 'ascii');
    const first = await completedJob(plain, { targetLanguage: 'es' });
    const second = await completedJob(plain, { targetLanguage: 'es' });
    expectConsistent(first.job, first.durationSeconds);
    expect(first.job.transcript!.length).toBeGreaterThan(3);
    expect(first.job.transcript!.at(-1)!.end).toBeGreaterThan(first.durationSeconds - 9);
    expect(second.job.transcript).toEqual(first.job.transcript);
    // Bank sentences have table translations.
    expect(
      first.job.translatedTranscript!.every((segment: { text: string }) => !segment.text.startsWith('[es]')),
    ).toBe(true);
    const other = Buffer.from(plain);
    other[other.length - 1] = 5;
    const third = await completedJob(other);
    expect(third.job.transcript).not.toEqual(first.job.transcript);
  });

  it('marks text it cannot translate with the language, and leaves the source language as is', async () => {
    const bytes = createMeetingRecording({ script: [{ speaker: 'A', text: 'Totally unknown sentence.' }] });
    const { job } = await completedJob(bytes, { targetLanguage: 'de' });
    expect(job.translatedTranscript![0]!.text).toBe('[de] Totally unknown sentence.');
    const same = await completedJob(bytes, { sourceLanguage: 'en', targetLanguage: 'en' });
    expect(same.job.translatedTranscript![0]!.text).toBe('Totally unknown sentence.');
  });

  it('returns every field of the job object', async () => {
    const { job } = await completedJob(
      createMeetingRecording({ script: SAMPLE_MEETING_SCRIPT }),
      {},
      'Weekly product sync.wav',
    );
    for (const field of [
      'id',
      'status',
      'progress',
      'credits',
      'creditsCharged',
      'title',
      'transcript',
      'translatedTranscript',
      'speakerNames',
      'summary',
      'warning',
      'errorMessage',
    ]) {
      expect(job, field).toHaveProperty(field);
    }
    expect(job.title).toBe('Weekly product sync');
    expect(job.warning).toBeNull();
    expect(job.errorMessage).toBeNull();
  });
});
