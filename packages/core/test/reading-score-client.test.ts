/**
 * The reading score client against a loopback server: 200 and 202 answered alike, what goes on the wire,
 * and what is refused before it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isNoSpeechResult } from '../src/contracts.js';
import {
  createFileAccess,
  createPolymodal,
  JobFailedError,
  type Polymodal,
  ValidationError,
} from '../src/index.js';
import type { ReadingScoreOptions } from '../src/reading-score/reading-score-types.js';
import { wav } from './support/make-wav.js';
import { ftypJunk, mp3, riffWaveJunk } from './support/media-files.js';
import { readBody, sendJson, startServer, type TestServer } from './support/start-server.js';

/** A valid WAV whose audio bytes start with `text`, to find it on the wire. */
function markedWav(text: string): Buffer {
  const bytes = wav(0.5);
  bytes.write(text, 44, 'latin1');
  return bytes;
}

const KEY = 'pm_live_readingkey';
const RESULT = {
  success: true,
  assessment: { passed: true, status: 'passed' },
  scores: { overall: 95, textAccuracy: 96, pronunciation: 94, levenshteinSimilarity: 97 },
  comparison: { correctTokenCount: 6, referenceTokenCount: 7, wordResults: [] },
};
let server: TestServer | undefined;
let polymodal: Polymodal | undefined;
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'reading-'));
  await writeFile(path.join(dir, 'student.wav'), markedWav('student-audio'));
  await writeFile(path.join(dir, 'teacher.wav'), markedWav('teacher-audio'));
  await writeFile(path.join(dir, 'empty.wav'), '');
});
afterEach(async () => {
  await polymodal?.close();
  await server?.close();
  polymodal = undefined;
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

const open = (url: string) => {
  polymodal = createPolymodal({
    baseUrl: url,
    apiKey: KEY,
    ledger: false,
    files: createFileAccess({ allowedDirs: [dir], outputDir: path.join(dir, 'out') }),
    http: { baseDelayMs: 1, maxDelayMs: 5 },
  });
  return polymodal.readingScore;
};

describe('reading score client', () => {
  it('sends the canonical multipart fields and returns a 200 result', async () => {
    let body = '';
    server = await startServer(async (request, response) => {
      body = await readBody(request);
      sendJson(response, 200, RESULT);
    });
    const result = await open(server.url).score({
      studentAudio: path.join(dir, 'student.wav'),
      referenceText: 'ฉันชอบอ่าน',
      engine: 'engine_w',
      studentId: 's1',
      includePronunciation: false,
    });
    expect(result.scores.overall).toBe(95);
    expect(server.requests[0]).toMatchObject({ method: 'POST', url: '/api/reading-score' });
    expect(server.requests[0]?.headers['x-api-key']).toBe(KEY);
    expect(body).toContain('name="student_audio"; filename="student.wav"');
    expect(body).toContain('student-audio');
    for (const [field, value] of [
      ['reference_text', 'ฉันชอบอ่าน'],
      ['asr_engine', 'engine_w'],
      ['student_id', 's1'],
      ['language', 'th'],
      ['include_pronunciation', 'false'],
    ]) {
      expect(body).toContain(`name="${field}"\r\n\r\n${value}\r\n`);
    }
  });

  it('follows a 202 to the status path with the same key until ready', async () => {
    let polls = 0;
    server = await startServer(async (request, response) => {
      if (request.method === 'POST') {
        const body = await readBody(request);
        expect(body).toContain('name="reference_audio"; filename="teacher.wav"');
        sendJson(response, 202, {
          success: true,
          queued: true,
          taskId: 't1',
          state: 'PENDING',
          ready: false,
          statusPath: '/api/low-latency-asr/reading-score/task/t1',
        });
        return;
      }
      polls += 1;
      sendJson(
        response,
        200,
        polls < 3
          ? { taskId: 't1', state: 'PENDING', ready: false }
          : { taskId: 't1', state: 'SUCCESS', ready: true, successful: true, result: RESULT },
      );
    });
    const states: string[] = [];
    const result = await open(server.url).score({
      studentAudio: path.join(dir, 'student.wav'),
      referenceAudio: path.join(dir, 'teacher.wav'),
      legacyRoute: true,
      onProgress: (task) => states.push(task.state),
    });
    expect(result.comparison.correctTokenCount).toBe(6);
    expect(server.requests.map((request) => `${request.method} ${request.url}`)).toEqual([
      'POST /api/low-latency-asr/reading-score',
      'GET /api/low-latency-asr/reading-score/task/t1',
      'GET /api/low-latency-asr/reading-score/task/t1',
      'GET /api/low-latency-asr/reading-score/task/t1',
    ]);
    expect(server.requests.every((request) => request.headers['x-api-key'] === KEY)).toBe(true);
    expect(states).toEqual(['PENDING', 'PENDING', 'SUCCESS']);
  });

  it('reports a failed task as JobFailedError with its error', async () => {
    server = await startServer((_request, response) =>
      sendJson(response, 200, {
        taskId: 't2',
        state: 'FAILURE',
        ready: true,
        successful: false,
        error: 'decode failed',
      }),
    );
    const wait = open(server.url).wait('t2');
    await expect(wait).rejects.toSatisfy(JobFailedError.isInstance);
    await expect(wait).rejects.toThrow(/decode failed/);
  });

  it('refuses bad input before sending anything', async () => {
    server = await startServer((_request, response) => sendJson(response, 200, RESULT));
    const client = open(server.url);
    const student = path.join(dir, 'student.wav');
    const attempts = [
      () => client.submit({ studentAudio: student }),
      () =>
        client.submit({
          studentAudio: student,
          referenceText: 'x',
          referenceAudio: path.join(dir, 'teacher.wav'),
        }),
      () => client.submit({ studentAudio: path.join(dir, 'missing.wav'), referenceText: 'x' }),
      () => client.submit({ studentAudio: path.join(dir, 'empty.wav'), referenceText: 'x' }),
      () => client.submit({ studentAudio: dir, referenceText: 'x' }),
      () => client.submit({ studentAudio: student, referenceText: 'x', engine: 'engine_z' as never }),
      () => client.retrieve('/etc/passwd'),
    ];
    for (const attempt of attempts) await expect(attempt()).rejects.toSatisfy(ValidationError.isInstance);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses broken or unrecognised audio, naming the problem and the field, with nothing sent', async () => {
    server = await startServer((_request, response) => sendJson(response, 200, RESULT));
    const client = open(server.url);
    const cases: [string, Buffer | string, RegExp][] = [
      ['junk.wav', riffWaveJunk(), /^studentAudio: .*junk\.wav is damaged: no valid RIFF chunk/],
      ['cut.wav', wav(1).subarray(0, 3000), /cut\.wav is cut short/],
      ['junk.m4a', ftypJunk(), /junk\.m4a is damaged or cut short/],
      [
        'notes.wav',
        'these are my notes, not a recording',
        /is not a WAV, MP3, M4A, OGG, WebM or FLAC recording/,
      ],
    ];
    for (const [name, content, problem] of cases) {
      await writeFile(path.join(dir, name), content);
      const attempt = client.submit({ studentAudio: path.join(dir, name), referenceText: 'x' });
      await expect(attempt).rejects.toThrow(problem);
      await expect(attempt).rejects.toThrow(/Nothing was sent\.$/);
    }
    await writeFile(path.join(dir, 'junk-reference.wav'), riffWaveJunk());
    await expect(
      client.submit({
        studentAudio: path.join(dir, 'student.wav'),
        referenceAudio: path.join(dir, 'junk-reference.wav'),
      }),
    ).rejects.toThrow(/^referenceAudio: .*junk-reference\.wav is damaged/);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a recording over the 50 MiB limit before sending anything', async () => {
    server = await startServer((_request, response) => sendJson(response, 200, RESULT));
    const client = open(server.url);
    // A sparse file: the header of a WAV and 20 GB of holes, no disk space used.
    const huge = path.join(dir, 'huge.wav');
    await writeFile(huge, wav(0));
    await truncate(huge, 20 * 1024 ** 3);
    await expect(client.submit({ studentAudio: huge, referenceText: 'x' })).rejects.toThrow(
      /huge\.wav is 20480\.0 MB, over the 50 MB limit for a reading recording/,
    );
    await expect(
      client.submit({ studentAudio: path.join(dir, 'student.wav'), referenceAudio: huge }),
    ).rejects.toThrow(/^referenceAudio: .*over the 50 MB limit/);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a FIFO at once instead of waiting for a writer', async () => {
    server = await startServer((_request, response) => sendJson(response, 200, RESULT));
    const fifo = path.join(dir, 'pipe.wav');
    execFileSync('mkfifo', [fifo]);
    await expect(open(server.url).submit({ studentAudio: fifo, referenceText: 'x' })).rejects.toThrow(
      /pipe\.wav is a named pipe, not a regular file/,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('sends MP3 audio as audio/mpeg, whatever the file is called', async () => {
    let body = '';
    server = await startServer(async (request, response) => {
      body = await readBody(request);
      sendJson(response, 200, RESULT);
    });
    await writeFile(path.join(dir, 'reading.dat'), mp3(20));
    await open(server.url).score({ studentAudio: path.join(dir, 'reading.dat'), referenceText: 'x' });
    expect(body).toContain('filename="reading.dat"\r\nContent-Type: audio/mpeg\r\n');
  });

  it('sends scoring_options as a JSON string and form fields given by alias under canonical names', async () => {
    let body = '';
    server = await startServer(async (request, response) => {
      body = await readBody(request);
      sendJson(response, 200, RESULT);
    });
    await open(server.url).score({
      studentAudio: path.join(dir, 'student.wav'),
      scoringOptions: { include_pronunciation: false, asr_engine: 'engine_w', rubric: 'strict' },
      formFields: { referenceText: 'ฉันชอบอ่าน', studentId: 's9', lessonId: 'l2', asrEngine: 'engine_w' },
    });
    expect(body).toContain(
      `name="scoring_options"\r\n\r\n${JSON.stringify({ include_pronunciation: false, asr_engine: 'engine_w', rubric: 'strict' })}\r\n`,
    );
    for (const [field, value] of [
      ['reference_text', 'ฉันชอบอ่าน'],
      ['student_id', 's9'],
      ['lesson_id', 'l2'],
      ['asr_engine', 'engine_w'],
    ]) {
      expect(body).toContain(`name="${field}"\r\n\r\n${value}\r\n`);
    }
    for (const alias of ['referenceText', 'studentId', 'lessonId', 'asrEngine']) {
      expect(body).not.toContain(`name="${alias}"`);
    }
  });

  it('refuses unknown, duplicate or conflicting fields before sending anything', async () => {
    server = await startServer((_request, response) => sendJson(response, 200, RESULT));
    const client = open(server.url);
    const studentAudio = path.join(dir, 'student.wav');
    const attempts: Omit<ReadingScoreOptions, 'studentAudio'>[] = [
      { formFields: { reference_text: 'x', referenceText: 'y' } },
      { referenceText: 'x', formFields: { referenceText: 'x' } },
      { referenceText: 'x', formFields: { colour: 'blue' } },
      { referenceText: 'x', formFields: { audio_file: 'student.wav' } },
      { referenceText: 'x', formFields: { language: 'en' } },
      { referenceText: 'x', formFields: { asrEngine: 'engine_q' } },
      {
        referenceText: 'x',
        engine: 'engine_t' as const,
        scoringOptions: { asr_engine: 'engine_w' as const },
      },
      { referenceText: 'x', includePronunciation: true, scoringOptions: { include_pronunciation: false } },
      { referenceText: 'x', scoringOptions: { asr_engine: 'engine_z' as never } },
      { referenceText: 'x', formFields: { scoring_options: '{not json' } },
    ];
    for (const attempt of attempts) {
      await expect(client.submit({ studentAudio, ...attempt })).rejects.toSatisfy(ValidationError.isInstance);
    }
    expect(server.requests).toHaveLength(0);
  });

  it('parses the no-speech exception as the spec shows it', async () => {
    const noSpeech = {
      success: true,
      assessment: {
        passed: false,
        status: 'no_speech',
        displayScoreMin: 0.0,
        usedBestAttemptSelection: false,
      },
      request: {
        language: 'th',
        asrEngine: 'engine_t',
        studentId: null,
        lessonId: null,
        includePronunciation: true,
      },
      student: {
        transcript: '',
        fullTranscript: '',
        tokens: [],
        tokenCount: 0,
        selectedAttempt: {
          mode: 'no_speech_detected',
          applied: false,
          candidateCount: 0,
          multipleAttemptsDetected: false,
          start: null,
          end: null,
          durationSeconds: null,
          tokenStartIndex: null,
          tokenEndIndex: null,
          hasTiming: false,
        },
        meta: {
          noSpeechDetected: true,
          voiceActivityChecked: true,
          voiceActivityDetected: false,
          audioDuration: 3.2,
        },
      },
      scores: { overall: 0.0, textAccuracy: 0.0, pronunciation: 0.0, levenshteinSimilarity: 0.0 },
      comparison: {
        correctTokenCount: 0,
        referenceTokenCount: 2,
        studentTokenCount: 0,
        missingTokenCount: 2,
        extraTokenCount: 0,
        substitutionCount: 0,
        wordResults: [
          {
            referenceIndex: 0,
            studentIndex: null,
            status: 'missing',
            referenceToken: 'ฉัน',
            studentToken: null,
            pronunciationConfidence: null,
          },
          {
            referenceIndex: 1,
            studentIndex: null,
            status: 'missing',
            referenceToken: 'ชอบ',
            studentToken: null,
            pronunciationConfidence: null,
          },
        ],
      },
      feedback: {
        pronunciationFocusWords: [],
        missingWords: ['ฉัน', 'ชอบ'],
        extraWords: [],
        substitutions: [],
      },
      diagnostics: {
        rawScores: { overall: 0, textAccuracy: 0, pronunciation: null, levenshteinSimilarity: 0 },
      },
      alignment: { used: false, averageConfidence: null, words: [], meta: { reason: 'no_speech_detected' } },
    };
    server = await startServer((_request, response) => sendJson(response, 200, noSpeech));
    const result = await open(server.url).score({
      studentAudio: path.join(dir, 'student.wav'),
      referenceText: 'ฉันชอบ',
    });
    expect(isNoSpeechResult(result)).toBe(true);
    expect(result.assessment.passed).toBe(false);
    expect(result.scores).toEqual({
      overall: 0,
      textAccuracy: 0,
      pronunciation: 0,
      levenshteinSimilarity: 0,
    });
    expect(result.student?.selectedAttempt?.mode).toBe('no_speech_detected');
    expect(result.student?.meta?.voiceActivityDetected).toBe(false);
    expect(result.alignment).toMatchObject({ used: false, meta: { reason: 'no_speech_detected' } });
    expect(result.comparison.wordResults.every((word) => word.pronunciationConfidence === null)).toBe(true);
    expect(result.feedback?.missingWords).toEqual(['ฉัน', 'ชอบ']);
    expect(isNoSpeechResult({ ...result, assessment: { passed: true, status: 'passed' } })).toBe(false);
  });
});
