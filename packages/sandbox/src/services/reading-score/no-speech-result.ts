/**
 * The result of a recording with no speech, the spec's full exception: every reference word missing,
 * every score 0, the assessment `no_speech` and no attempt selected.
 */
import type { ReadingReference, ReadingRequest } from './score-reading.js';

export function noSpeechResult(options: {
  reference: ReadingReference;
  request: ReadingRequest;
  studentMeta: object;
}) {
  const { reference } = options;
  const wordResults = reference.tokens.map((token, index) => ({
    referenceIndex: index,
    studentIndex: null,
    status: 'missing' as const,
    referenceToken: token,
    studentToken: null,
    pronunciationConfidence: null,
  }));
  return {
    success: true,
    assessment: { passed: false, status: 'no_speech', displayScoreMin: 0.0, usedBestAttemptSelection: false },
    request: options.request,
    reference,
    student: {
      transcript: '',
      fullTranscript: '',
      normalizedText: '',
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
      meta: options.studentMeta,
    },
    scores: { overall: 0.0, textAccuracy: 0.0, pronunciation: 0.0, levenshteinSimilarity: 0.0 },
    comparison: {
      correctTokenCount: 0,
      referenceTokenCount: reference.tokenCount,
      studentTokenCount: 0,
      missingTokenCount: reference.tokenCount,
      extraTokenCount: 0,
      substitutionCount: 0,
      wordResults,
    },
    feedback: {
      pronunciationFocusWords: [],
      missingWords: [...reference.tokens],
      extraWords: [],
      substitutions: [],
    },
    diagnostics: {
      rawScores: { overall: 0.0, textAccuracy: 0.0, pronunciation: 0.0, levenshteinSimilarity: 0.0 },
    },
    alignment: { used: false, averageConfidence: null, words: [], meta: { reason: 'no_speech_detected' } },
  };
}
