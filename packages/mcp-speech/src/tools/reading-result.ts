/**
 * How a reading score is shown to an agent: the scores, per-word results and feedback in structured
 * form, and one human line ("6 of 7 words correct; practise: อ่าน").
 */
import type { ReadingScoreResult } from '@polymodal/core';

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
