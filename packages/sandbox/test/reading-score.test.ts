/**
 * Conformance of the reading score service: fields and aliases, the real comparison, best-attempt
 * selection, the no-speech exception, 200 vs 202 with the task route, and input errors.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createReadingRecording, SAMPLE_READING_TEXT, type Sandbox, startSandbox } from '../src/index.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ speed: 100 });
});
beforeEach(() => sandbox.control.reset());
afterAll(() => sandbox.close());

function form(parts: Record<string, string | Buffer>): FormData {
  const body = new FormData();
  for (const [name, value] of Object.entries(parts)) {
    if (typeof value === 'string') body.append(name, value);
    else body.append(name, new Blob([value], { type: 'audio/wav' }), `${name}.wav`);
  }
  return body;
}

async function post(
  parts: Record<string, string | Buffer>,
  path = '/api/reading-score',
  key = sandbox.apiKey,
) {
  const response = await fetch(`${sandbox.url}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': key },
    body: form(parts),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const reading = (...attempts: string[]) => createReadingRecording({ attempts });

describe('reading score', () => {
  it('scores a perfect reading: every token correct, display scores 100', async () => {
    const { status, body } = await post({
      student_audio: reading(SAMPLE_READING_TEXT),
      reference_text: SAMPLE_READING_TEXT,
    });
    expect(status).toBe(200);
    expect(body.assessment).toEqual({
      passed: true,
      status: 'passed',
      displayScoreMin: 80,
      usedBestAttemptSelection: false,
    });
    expect(body.reference.tokens).toEqual(['ฉัน', 'ชอบ', 'อ่าน', 'หนังสือ', 'ที่', 'ห้อง', 'สมุด']);
    expect(body.comparison).toMatchObject({
      correctTokenCount: 7,
      referenceTokenCount: 7,
      missingTokenCount: 0,
      extraTokenCount: 0,
      substitutionCount: 0,
    });
    expect(body.scores.textAccuracy).toBe(100);
    expect(body.scores.levenshteinSimilarity).toBe(100);
    expect(body.request).toEqual({
      language: 'th',
      asrEngine: 'engine_t',
      studentId: null,
      lessonId: null,
      includePronunciation: true,
      referenceSource: 'referenceText',
    });
    expect(body.alignment.used).toBe(true);
    expect(body.alignment.words).toHaveLength(7);
    expect(body.student.meta).toMatchObject({ voiceActivityDetected: true, noSpeechDetected: false });
  });

  it('finds missing, extra and substituted words, with feedback and the display rule', async () => {
    const missing = await post({
      student_audio: reading('ฉันชอบหนังสือที่ห้องสมุด'),
      reference_text: SAMPLE_READING_TEXT,
    });
    expect(missing.body.feedback.missingWords).toEqual(['อ่าน']);
    const raw = missing.body.diagnostics.rawScores.textAccuracy;
    expect(raw).toBeCloseTo((6 / 7) * 100, 5);
    expect(missing.body.scores.textAccuracy).toBeCloseTo(80 + raw * 0.2, 1);

    const extra = await post({
      student_audio: reading('ฉันชอบอ่านหนังสือมากที่ห้องสมุด'),
      reference_text: SAMPLE_READING_TEXT,
    });
    expect(extra.body.feedback.extraWords).toEqual(['มาก']);
    expect(extra.body.comparison.wordResults.find((word: any) => word.status === 'extra')).toMatchObject({
      referenceIndex: null,
      studentToken: 'มาก',
      pronunciationConfidence: null,
    });

    const substituted = await post({
      studentAudio: reading('ฉันชอบเขียนหนังสือที่ห้องสมุด'),
      referenceText: SAMPLE_READING_TEXT,
    });
    expect(substituted.body.feedback.substitutions).toEqual([{ expected: 'อ่าน', actual: 'เขียน' }]);
    expect(substituted.body.feedback.pronunciationFocusWords).toEqual(['อ่าน']);
    expect(substituted.body.comparison.substitutionCount).toBe(1);
  });

  it('selects the best attempt when the student reads twice', async () => {
    const { body } = await post({
      audio_file: reading('ฉันชอบหนังสือ', SAMPLE_READING_TEXT),
      reference_text: SAMPLE_READING_TEXT,
    });
    expect(body.assessment.usedBestAttemptSelection).toBe(true);
    expect(body.student.selectedAttempt).toMatchObject({
      mode: 'best_token_window',
      applied: true,
      candidateCount: 2,
      multipleAttemptsDetected: true,
      tokenStartIndex: 3,
      hasTiming: true,
    });
    expect(body.student.transcript).toBe(SAMPLE_READING_TEXT);
    expect(body.student.fullTranscript).toBe(`ฉันชอบหนังสือ ${SAMPLE_READING_TEXT}`);
    expect(body.scores.textAccuracy).toBe(100);
  });

  it('answers silence with the full no-speech exception', async () => {
    const { status, body } = await post({ student_audio: reading(), reference_text: SAMPLE_READING_TEXT });
    expect(status).toBe(200);
    expect(body.assessment).toMatchObject({ status: 'no_speech', passed: false, displayScoreMin: 0 });
    expect(body.scores).toEqual({ overall: 0, textAccuracy: 0, pronunciation: 0, levenshteinSimilarity: 0 });
    expect(body.student.selectedAttempt.mode).toBe('no_speech_detected');
    expect(body.alignment).toEqual({
      used: false,
      averageConfidence: null,
      words: [],
      meta: { reason: 'no_speech_detected' },
    });
    expect(body.comparison.wordResults.every((word: any) => word.pronunciationConfidence === null)).toBe(
      true,
    );
    expect(body.student.meta).toMatchObject({
      noSpeechDetected: true,
      voiceActivityChecked: true,
      voiceActivityDetected: false,
    });
  });

  it('takes the reference from reference audio, the engine and ids from aliases and scoring_options', async () => {
    const { body } = await post({
      student_audio: reading(SAMPLE_READING_TEXT),
      referenceAudio: reading(SAMPLE_READING_TEXT),
      scoring_options: JSON.stringify({ asr_engine: 'engine_w', include_pronunciation: false }),
      studentId: 's-17',
      lesson_id: 'lesson-3',
    });
    expect(body.request).toMatchObject({
      asrEngine: 'engine_w',
      includePronunciation: false,
      studentId: 's-17',
      lessonId: 'lesson-3',
      referenceSource: 'referenceAudio',
    });
    expect(body.scores.pronunciation).toBeNull();
    expect(body.alignment).toMatchObject({ used: false, meta: { reason: 'pronunciation_disabled' } });
  });

  it('queues a long recording (202) and serves the result on the task route with the same key only', async () => {
    const long = createReadingRecording({ attempts: [SAMPLE_READING_TEXT], secondsPerAttempt: 25 });
    // Held: the queued task stays PENDING however slow the machine is (at speed 100 it is ready after 45 ms
    // of sandbox time); only advance() below finishes it. reset() before the next test lets time run again.
    sandbox.control.holdClock();
    const queued = await post(
      { student_audio: long, reference_text: SAMPLE_READING_TEXT },
      '/api/low-latency-asr/reading-score',
    );
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ success: true, queued: true, state: 'PENDING', ready: false });
    expect(queued.body.statusPath).toBe(`/api/low-latency-asr/reading-score/task/${queued.body.taskId}`);
    const status = (key: string) =>
      fetch(`${sandbox.url}/api/reading-score/task/${queued.body.taskId}`, { headers: { 'x-api-key': key } });
    expect(await (await status(sandbox.apiKey)).json()).toMatchObject({ state: 'PENDING', ready: false });
    expect((await status(sandbox.apiKey2)).status).toBe(404);
    sandbox.control.advance(60_000);
    const done = (await (await status(sandbox.apiKey)).json()) as Record<string, any>;
    expect(done).toMatchObject({ state: 'SUCCESS', ready: true, successful: true });
    expect(done.result.scores.textAccuracy).toBe(100);
  });

  it('refuses bad input with 400 and a clear error, and needs x-api-key', async () => {
    const audio = reading(SAMPLE_READING_TEXT);
    expect((await post({ reference_text: SAMPLE_READING_TEXT })).body.error).toMatch(/student_audio/);
    expect((await post({ student_audio: audio })).body.error).toMatch(/reference_text or reference_audio/);
    expect((await post({ student_audio: audio, reference_text: 'x', language: 'en' })).status).toBe(400);
    expect(
      (await post({ student_audio: audio, reference_text: 'x', asr_engine: 'engine_z' })).body.error,
    ).toMatch(/engine_t or engine_w/);
    expect((await post({ student_audio: audio, reference_text: 'x', scoring_options: '{oops' })).status).toBe(
      400,
    );
    expect(
      (await post({ student_audio: audio, reference_text: 'x' }, '/api/reading-score', 'pm_live_wrong'))
        .status,
    ).toBe(401);
  });
});
