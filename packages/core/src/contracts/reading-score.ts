/**
 * Wire contracts of the reading score service (`/api/reading-score`, legacy
 * `/api/low-latency-asr/reading-score`), from spec/speech-and-language.md. Responses are lenient; the
 * fields current callers read (`student.selectedAttempt`, `feedback.*`, `comparison.wordResults[]`,
 * `scores`, `assessment`) are typed.
 */
import { z } from 'zod';

export const READING_SCORE_ENGINES = ['engine_t', 'engine_w'] as const;
export const ReadingScoreEngine = z.enum(READING_SCORE_ENGINES);
export type ReadingScoreEngine = z.infer<typeof ReadingScoreEngine>;

/** The multipart fields of a scoring request, by their canonical names. */
export const READING_SCORE_FIELDS = [
  'student_audio',
  'reference_text',
  'reference_audio',
  'language',
  'asr_engine',
  'student_id',
  'lesson_id',
  'scoring_options',
  'include_pronunciation',
] as const;
export type ReadingScoreField = (typeof READING_SCORE_FIELDS)[number];

/** Every alias the service accepts, with the canonical field it stands for. */
export const READING_SCORE_FIELD_ALIASES: Readonly<Record<string, ReadingScoreField>> = {
  studentAudio: 'student_audio',
  audio_file: 'student_audio',
  referenceText: 'reference_text',
  referenceAudio: 'reference_audio',
  studentId: 'student_id',
  lessonId: 'lesson_id',
  asrEngine: 'asr_engine',
};

/** The canonical name of a field given by its canonical name or an alias; undefined when unknown. */
export function canonicalReadingScoreField(name: string): ReadingScoreField | undefined {
  if ((READING_SCORE_FIELDS as readonly string[]).includes(name)) return name as ReadingScoreField;
  return Object.hasOwn(READING_SCORE_FIELD_ALIASES, name) ? READING_SCORE_FIELD_ALIASES[name] : undefined;
}

/** `scoring_options`, sent as a JSON string. Documented keys are typed; others pass through. */
export const ReadingScoringOptions = z.looseObject({
  include_pronunciation: z.boolean().optional(),
  asr_engine: ReadingScoreEngine.optional(),
});
export type ReadingScoringOptions = z.infer<typeof ReadingScoringOptions>;

export const ReadingWordResult = z.looseObject({
  referenceIndex: z.number().nullable(),
  studentIndex: z.number().nullable(),
  status: z.string(),
  referenceToken: z.string().nullable(),
  studentToken: z.string().nullable(),
  pronunciationConfidence: z.number().nullable().optional(),
});
export type ReadingWordResult = z.infer<typeof ReadingWordResult>;

export const ReadingScoreResult = z.looseObject({
  success: z.boolean(),
  assessment: z.looseObject({
    passed: z.boolean(),
    status: z.string(),
    displayScoreMin: z.number().optional(),
    usedBestAttemptSelection: z.boolean().optional(),
  }),
  request: z.looseObject({}).optional(),
  reference: z
    .looseObject({ text: z.string().optional(), tokens: z.array(z.string()).optional() })
    .optional(),
  student: z
    .looseObject({
      transcript: z.string().nullish(),
      fullTranscript: z.string().nullish(),
      tokens: z.array(z.string()).optional(),
      selectedAttempt: z.looseObject({ mode: z.string() }).nullish(),
      meta: z
        .looseObject({
          noSpeechDetected: z.boolean().optional(),
          audioDuration: z.number().nullish(),
          voiceActivityChecked: z.boolean().optional(),
          voiceActivityDetected: z.boolean().optional(),
          voiceActivityDuration: z.number().nullish(),
        })
        .optional(),
    })
    .optional(),
  scores: z.looseObject({
    overall: z.number().nullable(),
    textAccuracy: z.number().nullable(),
    pronunciation: z.number().nullable(),
    levenshteinSimilarity: z.number().nullable(),
  }),
  comparison: z.looseObject({
    correctTokenCount: z.number(),
    referenceTokenCount: z.number(),
    studentTokenCount: z.number().optional(),
    missingTokenCount: z.number().optional(),
    extraTokenCount: z.number().optional(),
    substitutionCount: z.number().optional(),
    wordResults: z.array(ReadingWordResult).default([]),
  }),
  feedback: z
    .looseObject({
      pronunciationFocusWords: z.array(z.string()).default([]),
      missingWords: z.array(z.string()).default([]),
      extraWords: z.array(z.string()).default([]),
      substitutions: z.array(z.looseObject({ expected: z.string(), actual: z.string() })).default([]),
    })
    .optional(),
  diagnostics: z.looseObject({}).optional(),
  alignment: z
    .looseObject({
      used: z.boolean(),
      averageConfidence: z.number().nullish(),
      words: z.array(z.looseObject({})).optional(),
      meta: z.looseObject({ reason: z.string().nullish() }).nullish(),
    })
    .optional(),
});
export type ReadingScoreResult = z.infer<typeof ReadingScoreResult>;

/** The spec's no-speech exception: confirmed silence, scores 0.0, not passed. */
export function isNoSpeechResult(result: ReadingScoreResult): boolean {
  return result.assessment.status === 'no_speech';
}

export const ReadingScoreQueued = z.looseObject({
  queued: z.literal(true),
  taskId: z.string().min(1),
  statusPath: z.string().min(1),
  state: z.string().optional(),
  ready: z.boolean().optional(),
});
export type ReadingScoreQueued = z.infer<typeof ReadingScoreQueued>;

/** 200 carries the result, 202 the queued object: told apart by `queued`. */
export const ReadingScoreAnswer = z.union([ReadingScoreQueued, ReadingScoreResult]);

export const ReadingScoreTask = z.looseObject({
  taskId: z.string(),
  state: z.string(),
  ready: z.boolean(),
  successful: z.boolean().nullish(),
  result: ReadingScoreResult.optional(),
  /** A string or an object: the spec does not show which. */
  error: z.unknown().optional(),
});
export type ReadingScoreTask = z.infer<typeof ReadingScoreTask>;
