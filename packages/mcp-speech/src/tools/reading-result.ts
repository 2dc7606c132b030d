/**
 * How a reading score is shown to an agent: the scores, per-word results and feedback in structured
 * form, and one human line ("6 of 7 words correct; practise: อ่าน").
 */
import type { ReadingScoreResult } from '@polymodal/core';
import { z } from 'zod';

export const readingOutcomeShape = {
  passed: z.boolean().optional().describe('False when no speech was found.'),
  assessment: z.string().optional().describe('passed, or no_speech when the recording holds no voice.'),
  scores: z
    .object({
      overall: z.number().nullable(),
      textAccuracy: z.number().nullable(),
      pronunciation: z.number().nullable(),
      levenshteinSimilarity: z.number().nullable(),
    })
    .optional()
    .describe('Displayed scores (80 + raw × 0.2; 0 for no speech).'),
  correctWords: z.number().optional(),
  referenceWords: z.number().optional(),
  transcript: z.string().nullable().optional().describe('What the selected reading attempt said.'),
  words: z
    .array(
      z.object({
        status: z.string(),
        expected: z.string().nullable(),
        heard: z.string().nullable(),
        confidence: z.number().nullable(),
      }),
    )
    .optional()
    .describe('Token-by-token comparison: correct, missing, extra or substitution.'),
  feedback: z
    .object({
      practise: z.array(z.string()),
      missingWords: z.array(z.string()),
      extraWords: z.array(z.string()),
      substitutions: z.array(z.object({ expected: z.string(), actual: z.string() })),
    })
    .optional(),
};

export function readingOutcome(result: ReadingScoreResult) {
  const feedback = result.feedback ?? {
    pronunciationFocusWords: [],
    missingWords: [],
    extraWords: [],
    substitutions: [],
  };
  const practise = [
    ...new Set([
      ...feedback.missingWords,
      ...feedback.substitutions.map((item) => item.expected),
      ...feedback.pronunciationFocusWords,
    ]),
  ];
  return {
    passed: result.assessment.passed,
    assessment: result.assessment.status,
    scores: {
      overall: result.scores.overall,
      textAccuracy: result.scores.textAccuracy,
      pronunciation: result.scores.pronunciation,
      levenshteinSimilarity: result.scores.levenshteinSimilarity,
    },
    correctWords: result.comparison.correctTokenCount,
    referenceWords: result.comparison.referenceTokenCount,
    transcript: result.student?.transcript ?? null,
    words: result.comparison.wordResults.map((word) => ({
      status: word.status,
      expected: word.referenceToken,
      heard: word.studentToken,
      confidence: word.pronunciationConfidence ?? null,
    })),
    feedback: {
      practise,
      missingWords: feedback.missingWords,
      extraWords: feedback.extraWords,
      substitutions: feedback.substitutions.map((item) => ({ expected: item.expected, actual: item.actual })),
    },
  };
}

export function readingSummary(result: ReadingScoreResult): string {
  if (result.assessment.status === 'no_speech') {
    return 'No speech was detected in the recording (all scores 0). Check the microphone and ask the student to read again.';
  }
  const outcome = readingOutcome(result);
  const score = (value: number | null) => (value === null ? 'n/a' : value.toFixed(1));
  const practise =
    outcome.feedback.practise.length > 0
      ? `; practise: ${outcome.feedback.practise.join(', ')}`
      : '; nothing to practise';
  return (
    `${outcome.correctWords} of ${outcome.referenceWords} words correct${practise}. ` +
    `Scores: overall ${score(outcome.scores.overall)}, text ${score(outcome.scores.textAccuracy)}, ` +
    `pronunciation ${score(outcome.scores.pronunciation)}.`
  );
}
