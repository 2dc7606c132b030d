/**
 * The reading score form: the canonical multipart fields and every alias, `scoring_options` (a JSON
 * object string whose values the explicit fields override), and the reference as text or, when no text
 * is given, as a recording the sandbox can "hear" (one with a fixture script).
 */
import { HttpError } from '../../framework/http-error.js';
import { analyzeStudentAudio } from './analyze-student-audio.js';
import type { MultipartForm } from './read-multipart.js';
import type { ReadingRequest } from './score-reading.js';

const ALIASES = {
  studentAudio: ['student_audio', 'studentAudio', 'audio_file'],
  referenceText: ['reference_text', 'referenceText'],
  referenceAudio: ['reference_audio', 'referenceAudio'],
  asrEngine: ['asr_engine', 'asrEngine'],
  studentId: ['student_id', 'studentId'],
  lessonId: ['lesson_id', 'lessonId'],
} as const;

export interface ReadingForm {
  studentAudio: Buffer;
  referenceText: string;
  request: ReadingRequest;
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

function parseScoringOptions(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined || raw.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error('not an object');
    return parsed as Record<string, unknown>;
  } catch {
    throw new HttpError(400, 'scoring_options must be a JSON object string');
  }
}

/** The reference text: given, else heard in the reference recording. */
function readReference(
  form: MultipartForm,
): Pick<ReadingForm['request'], 'referenceSource'> & { text: string } {
  const referenceText = pick(form.fields, ALIASES.referenceText)?.trim();
  if (referenceText) return { text: referenceText, referenceSource: 'referenceText' };
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
  return {
    text: heardReference.attempts.map((attempt) => attempt.text).join(' '),
    referenceSource: 'referenceAudio',
  };
}

/** Checks the form in the platform's order; the first bad field is a 400. */
export function parseReadingForm(form: MultipartForm): ReadingForm {
  const student = pick(form.files, ALIASES.studentAudio);
  if (!student || student.data.length === 0) {
    throw new HttpError(400, 'student_audio is required (a recording of the student reading)');
  }
  const scoringOptions = parseScoringOptions(form.fields.get('scoring_options'));
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
  const reference = readReference(form);
  return {
    studentAudio: student.data,
    referenceText: reference.text,
    request: {
      language: 'th',
      asrEngine: engine,
      studentId: pick(form.fields, ALIASES.studentId) ?? null,
      lessonId: pick(form.fields, ALIASES.lessonId) ?? null,
      includePronunciation,
      referenceSource: reference.referenceSource,
    },
  };
}
