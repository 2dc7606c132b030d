/**
 * The reading score service: `POST /api/reading-score` (and the legacy `/api/low-latency-asr/reading-score`),
 * multipart with the canonical fields and every alias, 200 with the result or 202 with a task to poll at
 * `/task/{taskId}` with the same key.
 *
 * Sandbox choices where the spec is silent: invalid input → 400 `{error}` (missing student audio, no
 * reference, both text and audio are fine — text wins, non-Thai language, unknown engine, bad
 * scoring_options JSON); files over 50 MB → 413; a student recording longer than 20 s answers 202 and its
 * task completes after 2 s + a tenth of the audio length (sandbox clock, scaled by speed); another user's
 * task → 404. The `asr_engine` field wins over `scoring_options.asr_engine`.
 */
import type { KeyScheme } from '../../framework/authenticator.js';
import { HttpError } from '../../framework/http-error.js';
import type { RequestContext } from '../../framework/request-context.js';
import type { Router } from '../../framework/router.js';
import { json } from '../../framework/sandbox-response.js';
import type { SandboxService, ServiceContext } from '../../framework/sandbox-service.js';
import { analyzeStudentAudio } from './analyze-student-audio.js';
import { readMultipart } from './read-multipart.js';
import { type ReadingRequest, scoreReading } from './score-reading.js';

export const READING_SCORE_PATH = '/api/reading-score';
export const LEGACY_READING_SCORE_PATH = '/api/low-latency-asr/reading-score';
const KEY_SCHEMES: readonly KeyScheme[] = ['x-api-key'];
const MAX_FILE_BYTES = 50 * 1024 * 1024;
const QUEUE_ABOVE_SECONDS = 20;

const ALIASES = {
  studentAudio: ['student_audio', 'studentAudio', 'audio_file'],
  referenceText: ['reference_text', 'referenceText'],
  referenceAudio: ['reference_audio', 'referenceAudio'],
  asrEngine: ['asr_engine', 'asrEngine'],
  studentId: ['student_id', 'studentId'],
  lessonId: ['lesson_id', 'lessonId'],
} as const;

interface Task {
  id: string;
  userId: string;
  readyAt: number;
  result: unknown;
}

function pick<T>(map: Map<string, T>, names: readonly string[]): T | undefined {
  for (const name of names) if (map.has(name)) return map.get(name);
  return undefined;
}

function booleanLike(value: unknown, field: string): boolean | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'boolean') return value;
  const text = String(value).trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(text)) return true;
  if (['false', '0', 'no', 'off'].includes(text)) return false;
  throw new HttpError(400, `${field} must be true or false`);
}

export function createReadingScoreService(context: ServiceContext): SandboxService {
  const tasks = new Map<string, Task>();
  let sequence = 0;

  async function score(request: RequestContext, statusBase: string) {
    const { user } = request.authenticate(KEY_SCHEMES);
    const form = await readMultipart(request.request, MAX_FILE_BYTES);
    const student = pick(form.files, ALIASES.studentAudio);
    if (!student || student.data.length === 0) {
      throw new HttpError(400, 'student_audio is required (a recording of the student reading)');
    }
    let scoringOptions: Record<string, unknown> = {};
    const rawOptions = form.fields.get('scoring_options');
    if (rawOptions !== undefined && rawOptions.trim() !== '') {
      try {
        const parsed: unknown = JSON.parse(rawOptions);
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
          throw new Error('not an object');
        scoringOptions = parsed as Record<string, unknown>;
      } catch {
        throw new HttpError(400, 'scoring_options must be a JSON object string');
      }
    }
    const language = form.fields.get('language') ?? 'th';
    if (language !== 'th') throw new HttpError(400, `language ${language} is not supported; only th (Thai)`);
    const engine =
      pick(form.fields, ALIASES.asrEngine) ?? (scoringOptions.asr_engine as string | undefined) ?? 'engine_t';
    if (engine !== 'engine_t' && engine !== 'engine_w') {
      throw new HttpError(400, `asr_engine ${engine} is not supported; use engine_t or engine_w`);
    }
    const includePronunciation =
      booleanLike(form.fields.get('include_pronunciation'), 'include_pronunciation') ??
      booleanLike(scoringOptions.include_pronunciation, 'scoring_options.include_pronunciation') ??
      true;

    let referenceText = pick(form.fields, ALIASES.referenceText)?.trim();
    let referenceSource: ReadingRequest['referenceSource'] = 'referenceText';
    if (!referenceText) {
      const referenceAudio = pick(form.files, ALIASES.referenceAudio);
      if (!referenceAudio) throw new HttpError(400, 'give reference_text or reference_audio');
      const heardReference = analyzeStudentAudio(referenceAudio.data);
      if (!heardReference.speech) throw new HttpError(400, 'reference_audio contains no speech');
      if (heardReference.attempts.length === 0) {
        throw new HttpError(
          400,
          'the sandbox cannot transcribe this reference_audio (it has no fixture script); send reference_text',
        );
      }
      referenceText = heardReference.attempts.map((attempt) => attempt.text).join(' ');
      referenceSource = 'referenceAudio';
    }

    const heard = analyzeStudentAudio(student.data);
    const result = scoreReading({
      referenceText,
      heard,
      request: {
        language: 'th',
        asrEngine: engine,
        studentId: pick(form.fields, ALIASES.studentId) ?? null,
        lessonId: pick(form.fields, ALIASES.lessonId) ?? null,
        includePronunciation,
        referenceSource,
      },
    });
    context.counters.increment('readingScores', user.id);
    if (heard.durationSeconds <= QUEUE_ABOVE_SECONDS) return json(200, result);

    sequence += 1;
    const id = `rs_${sequence.toString().padStart(6, '0')}`;
    const delayMs = ((2 + heard.durationSeconds / 10) * 1000) / context.speed;
    tasks.set(id, { id, userId: user.id, readyAt: context.clock.now() + delayMs, result });
    return json(202, {
      success: true,
      queued: true,
      taskId: id,
      state: 'PENDING',
      ready: false,
      statusPath: `${statusBase}/task/${id}`,
    });
  }

  function status(request: RequestContext) {
    const { user } = request.authenticate(KEY_SCHEMES);
    const task = tasks.get(request.params.taskId ?? '');
    if (!task || task.userId !== user.id) throw new HttpError(404, `task ${request.params.taskId} not found`);
    if (context.clock.now() < task.readyAt)
      return json(200, { taskId: task.id, state: 'PENDING', ready: false });
    return json(200, {
      taskId: task.id,
      state: 'SUCCESS',
      ready: true,
      successful: true,
      result: task.result,
    });
  }

  return {
    name: 'reading-score',
    register(router: Router) {
      for (const base of [READING_SCORE_PATH, LEGACY_READING_SCORE_PATH]) {
        router.route('POST', base, (request) => score(request, base));
        router.route('GET', `${base}/task/:taskId`, status);
      }
    },
    settle() {},
    async reset() {
      tasks.clear();
      sequence = 0;
    },
    async close() {
      tasks.clear();
    },
  };
}
