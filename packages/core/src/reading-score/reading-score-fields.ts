/**
 * The text fields of a scoring request, checked before anything is sent and built under the canonical
 * names: `formFields` given under any accepted alias are folded into the typed options, exactly one of
 * reference text and reference audio is accepted (the spec requires one; sending both would leave which
 * one counts to the server), and `scoring_options` goes out as a JSON string that may not contradict the
 * typed options.
 */
import {
  canonicalReadingScoreField,
  ReadingScoreEngine,
  ReadingScoringOptions,
} from '../contracts/reading-score.js';
import { describeIssues, listIssues } from '../errors/describe-issues.js';
import { ValidationError } from '../errors/polymodal-error.js';
import type { ReadingScoreOptions } from './reading-score-types.js';

/** The form fields to send (files aside), for a request whose `formFields` are already folded in. */
export function readingScoreFields(request: ReadingScoreOptions): Record<string, string> {
  const hasText = request.referenceText !== undefined && request.referenceText.trim() !== '';
  if (hasText === (request.referenceAudio !== undefined)) {
    throw new ValidationError(
      'Give either referenceText or referenceAudio (exactly one). Nothing was sent.',
      [{ path: 'referenceText', message: 'exactly one of referenceText and referenceAudio' }],
    );
  }
  if (request.engine !== undefined && !ReadingScoreEngine.safeParse(request.engine).success) {
    throw new ValidationError(
      `Unknown engine ${request.engine}: use engine_t (default) or engine_w. Nothing was sent.`,
      [{ path: 'engine', message: 'engine_t or engine_w' }],
    );
  }
  const scoringOptions = scoringOptionsField(request);
  const fields: Record<string, string> = { language: 'th' };
  if (hasText) fields.reference_text = (request.referenceText as string).trim();
  if (request.engine) fields.asr_engine = request.engine;
  if (request.studentId) fields.student_id = request.studentId;
  if (request.lessonId) fields.lesson_id = request.lessonId;
  if (request.includePronunciation !== undefined)
    fields.include_pronunciation = String(request.includePronunciation);
  if (scoringOptions !== undefined) fields.scoring_options = scoringOptions;
  return fields;
}

/** `scoringOptions` as the JSON string sent; the same setting twice with different values is refused. */
function scoringOptionsField(request: ReadingScoreOptions): string | undefined {
  if (request.scoringOptions === undefined) return undefined;
  const parsed = ReadingScoringOptions.safeParse(request.scoringOptions);
  if (!parsed.success) {
    const issues = describeIssues(parsed.error, request.scoringOptions, ['scoringOptions']);
    throw new ValidationError(`Invalid scoringOptions: ${listIssues(issues)}. Nothing was sent.`, issues);
  }
  const inner = parsed.data;
  // The same setting twice with different values would leave the choice to the server.
  if (inner.asr_engine && request.engine && inner.asr_engine !== request.engine) {
    throw new ValidationError(
      `engine ${request.engine} and scoringOptions.asr_engine ${inner.asr_engine} disagree. Nothing was sent.`,
      [{ path: 'scoringOptions.asr_engine', message: 'differs from engine' }],
    );
  }
  if (
    inner.include_pronunciation !== undefined &&
    request.includePronunciation !== undefined &&
    inner.include_pronunciation !== request.includePronunciation
  ) {
    throw new ValidationError(
      'includePronunciation and scoringOptions.include_pronunciation disagree. Nothing was sent.',
      [{ path: 'scoringOptions.include_pronunciation', message: 'differs from includePronunciation' }],
    );
  }
  return JSON.stringify(inner);
}

/** Folds `formFields` (canonical names or aliases) into the typed options; conflicts are refused. */
export function withFormFields(request: ReadingScoreOptions): ReadingScoreOptions {
  const merged: ReadingScoreOptions = { ...request };
  const setOnce = <K extends keyof ReadingScoreOptions>(
    name: string,
    key: K,
    value: ReadingScoreOptions[K],
  ) => {
    if (merged[key] !== undefined) refuseFormField(name, `${String(key)} is already given`);
    merged[key] = value;
  };
  for (const [name, value] of Object.entries(request.formFields ?? {})) {
    const field = canonicalReadingScoreField(name);
    if (field === undefined) refuseFormField(name, 'not a field of the reading score service');
    switch (field) {
      case 'student_audio':
      case 'reference_audio':
        refuseFormField(name, 'files are given as studentAudio / referenceAudio paths');
        break;
      case 'reference_text':
        setOnce(name, 'referenceText', value);
        break;
      case 'student_id':
        setOnce(name, 'studentId', value);
        break;
      case 'lesson_id':
        setOnce(name, 'lessonId', value);
        break;
      case 'asr_engine':
        setOnce(name, 'engine', value as ReadingScoreEngine);
        break;
      case 'language':
        if (value !== 'th') refuseFormField(name, 'only Thai (th) is supported');
        break;
      case 'include_pronunciation':
        if (value !== 'true' && value !== 'false') refuseFormField(name, 'true or false');
        setOnce(name, 'includePronunciation', value === 'true');
        break;
      case 'scoring_options':
        setOnce(name, 'scoringOptions', parseScoringOptions(name, value));
        break;
    }
  }
  return merged;
}

function parseScoringOptions(name: string, value: string): ReadingScoringOptions {
  try {
    return JSON.parse(value) as ReadingScoringOptions;
  } catch {
    return refuseFormField(name, 'not JSON');
  }
}

function refuseFormField(name: string, message: string): never {
  throw new ValidationError(`formFields.${name}: ${message}. Nothing was sent.`, [
    { path: `formFields.${name}`, message },
  ]);
}
