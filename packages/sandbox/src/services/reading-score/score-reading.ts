/**
 * The reading score result, computed for real from what the sandbox "heard" (see analyze-student-audio):
 * Thai tokens, best-attempt selection, token alignment, Levenshtein similarity, the display rule
 * (80 + raw × 0.2 after bounding raw to 0..100) and the full no-speech exception of the spec.
 *
 * Sandbox choices where the spec is silent: raw overall = 0.5 × textAccuracy + 0.3 × similarity + 0.2 ×
 * pronunciation (0.6/0.4 without pronunciation); pronunciation confidence is derived from the alignment
 * (a correct word 0.85–0.94, deterministic per word; a substituted word 0.40; missing and extra words null).
 */

import { createHash } from 'node:crypto';
import type { HeardAttempt, HeardAudio } from './analyze-student-audio.js';
import { type AlignedWord, alignTokens, levenshteinSimilarity } from './compare-tokens.js';
import { noSpeechResult } from './no-speech-result.js';
import { normalizeText, tokenize } from './thai-tokens.js';

export interface ReadingRequest {
  language: string;
  asrEngine: 'engine_t' | 'engine_w';
  studentId: string | null;
  lessonId: string | null;
  includePronunciation: boolean;
  referenceSource: 'referenceText' | 'referenceAudio';
}

export interface ReadingReference {
  text: string;
  normalizedText: string;
  tokens: string[];
  tokenCount: number;
  meta: object;
}

const FOCUS_BELOW = 0.6;

const display = (raw: number) => round(80 + Math.min(100, Math.max(0, raw)) * 0.2);
const round = (value: number) => Math.round(value * 10) / 10;

type WordResult = AlignedWord & { pronunciationConfidence: number | null };

function confidenceOf(word: AlignedWord): number | null {
  if (word.status === 'substitution') return 0.4;
  if (word.status !== 'correct' || word.referenceToken === null) return null;
  const hash = createHash('sha256').update(word.referenceToken).digest();
  return 0.85 + ((hash[0] ?? 0) % 10) / 100;
}

function referenceOf(text: string): ReadingReference {
  const tokens = tokenize(text);
  return {
    text,
    normalizedText: normalizeText(text),
    tokens,
    tokenCount: tokens.length,
    meta: { tokenizer: 'Intl.Segmenter(th, word)' },
  };
}

function studentMetaOf(heard: HeardAudio, request: ReadingRequest) {
  return {
    model: 'sandbox-script-reader',
    device: 'cpu',
    noSpeechDetected: !heard.speech,
    audioDuration: round(heard.durationSeconds),
    voiceActivityChecked: true,
    voiceActivityDetected: heard.speech,
    voiceActivityDuration: round(heard.voicedSeconds),
    voiceActivityDetector: 'sandbox-energy-vad',
    speechRegionCount: heard.speechRegionCount,
    ...(request.asrEngine === 'engine_t'
      ? { silenceRemovedOnEngineT: false, windowedRecoveryOnEngineT: false, windowedRecoveryWindowCount: 0 }
      : {}),
  };
}

interface SelectedAttempt {
  attempts: HeardAttempt[];
  selected: HeardAttempt;
  studentTokens: string[];
  /** Index of the selected attempt's first token among all attempts' tokens. */
  tokenStartIndex: number;
}

/** The attempt closest to the reference (the first on a tie). */
function selectBestAttempt(reference: ReadingReference, heard: HeardAudio): SelectedAttempt {
  // Voiced audio without a known script is taken to read the reference exactly (documented).
  const attempts =
    heard.attempts.length > 0
      ? heard.attempts
      : [{ text: reference.text, start: 0, end: heard.durationSeconds }];
  const attemptTokens = attempts.map((attempt) => tokenize(attempt.text));
  let best = 0;
  attemptTokens.forEach((tokens, index) => {
    if (
      levenshteinSimilarity(reference.tokens, tokens) >
      levenshteinSimilarity(reference.tokens, attemptTokens[best] ?? [])
    )
      best = index;
  });
  return {
    attempts,
    selected: attempts[best]!,
    studentTokens: attemptTokens[best] ?? [],
    tokenStartIndex: attemptTokens.slice(0, best).reduce((sum, tokens) => sum + tokens.length, 0),
  };
}

/** Word timings spread evenly over the selected attempt, for the words read (when timing is known). */
function alignmentWordsOf(wordResults: WordResult[], attempt: SelectedAttempt) {
  const { selected, studentTokens } = attempt;
  const perToken = (selected.end - selected.start) / Math.max(1, studentTokens.length);
  return wordResults
    .filter((word) => word.studentIndex !== null && word.referenceIndex !== null)
    .map((word) => ({
      index: word.referenceIndex as number,
      word: word.referenceToken as string,
      start: round(selected.start + (word.studentIndex as number) * perToken),
      end: round(selected.start + ((word.studentIndex as number) + 1) * perToken),
      confidence: word.pronunciationConfidence,
    }));
}

interface RawScores {
  overall: number;
  textAccuracy: number;
  pronunciation: number | null;
  levenshteinSimilarity: number;
}

function rawScoresOf(
  reference: ReadingReference,
  attempt: SelectedAttempt,
  words: { results: WordResult[]; correct: number; alignmentUsed: boolean },
): RawScores {
  const referenceTokens = reference.tokens;
  const textAccuracy = referenceTokens.length === 0 ? 0 : (100 * words.correct) / referenceTokens.length;
  const similarity = levenshteinSimilarity(referenceTokens, attempt.studentTokens);
  const pronunciation = words.alignmentUsed
    ? (100 *
        words.results
          .filter((word) => word.referenceIndex !== null)
          .reduce((sum, word) => sum + (word.pronunciationConfidence ?? 0), 0)) /
      Math.max(1, referenceTokens.length)
    : null;
  const overall =
    pronunciation === null
      ? 0.6 * textAccuracy + 0.4 * similarity
      : 0.5 * textAccuracy + 0.3 * similarity + 0.2 * pronunciation;
  return { overall, textAccuracy, pronunciation, levenshteinSimilarity: similarity };
}

function studentPart(heard: HeardAudio, attempt: SelectedAttempt, meta: object) {
  const { attempts, selected, studentTokens, tokenStartIndex } = attempt;
  return {
    transcript: selected.text,
    fullTranscript: attempts.map((entry) => entry.text).join(' '),
    normalizedText: normalizeText(selected.text),
    tokens: studentTokens,
    tokenCount: studentTokens.length,
    selectedAttempt: {
      mode: 'best_token_window',
      applied: attempts.length > 1,
      candidateCount: attempts.length,
      multipleAttemptsDetected: attempts.length > 1,
      start: heard.hasTiming ? selected.start : null,
      end: heard.hasTiming ? selected.end : null,
      durationSeconds: heard.hasTiming ? round(selected.end - selected.start) : null,
      tokenStartIndex,
      tokenEndIndex: tokenStartIndex + Math.max(0, studentTokens.length - 1),
      hasTiming: heard.hasTiming,
    },
    meta,
  };
}

/** Word counts by status, the per-word results, and the feedback drawn from them. */
function comparisonAndFeedback(
  reference: ReadingReference,
  studentTokens: string[],
  wordResults: WordResult[],
) {
  const missing = wordResults.filter((word) => word.status === 'missing');
  const extra = wordResults.filter((word) => word.status === 'extra');
  const substitutions = wordResults.filter((word) => word.status === 'substitution');
  return {
    comparison: {
      correctTokenCount: wordResults.filter((word) => word.status === 'correct').length,
      referenceTokenCount: reference.tokens.length,
      studentTokenCount: studentTokens.length,
      missingTokenCount: missing.length,
      extraTokenCount: extra.length,
      substitutionCount: substitutions.length,
      wordResults,
    },
    feedback: {
      pronunciationFocusWords: wordResults
        .filter((word) => word.referenceToken !== null && (word.pronunciationConfidence ?? 1) < FOCUS_BELOW)
        .map((word) => word.referenceToken as string),
      missingWords: missing.map((word) => word.referenceToken as string),
      extraWords: extra.map((word) => word.studentToken as string),
      substitutions: substitutions.map((word) => ({
        expected: word.referenceToken as string,
        actual: word.studentToken as string,
      })),
    },
  };
}

export function scoreReading(options: { referenceText: string; heard: HeardAudio; request: ReadingRequest }) {
  const { heard, request } = options;
  const reference = referenceOf(options.referenceText);
  const studentMeta = studentMetaOf(heard, request);
  if (!heard.speech) return noSpeechResult({ reference, request, studentMeta });

  const attempt = selectBestAttempt(reference, heard);
  const aligned = alignTokens(reference.tokens, attempt.studentTokens);
  const wordResults: WordResult[] = aligned.map((word) => ({
    ...word,
    pronunciationConfidence: request.includePronunciation ? confidenceOf(word) : null,
  }));
  const correct = aligned.filter((word) => word.status === 'correct').length;
  const alignmentUsed = request.includePronunciation && heard.hasTiming;
  const alignmentWords = alignmentUsed ? alignmentWordsOf(wordResults, attempt) : [];
  const confidences = alignmentWords.map((word) => word.confidence ?? 0);
  const averageConfidence =
    confidences.length > 0 ? confidences.reduce((a, b) => a + b, 0) / confidences.length : null;
  const raw = rawScoresOf(reference, attempt, { results: wordResults, correct, alignmentUsed });
  const { comparison, feedback } = comparisonAndFeedback(reference, attempt.studentTokens, wordResults);

  return {
    success: true,
    assessment: {
      passed: true,
      status: 'passed',
      displayScoreMin: 80.0,
      usedBestAttemptSelection: attempt.attempts.length > 1,
    },
    request,
    reference,
    student: studentPart(heard, attempt, studentMeta),
    scores: {
      overall: display(raw.overall),
      textAccuracy: display(raw.textAccuracy),
      pronunciation: raw.pronunciation === null ? null : display(raw.pronunciation),
      levenshteinSimilarity: display(raw.levenshteinSimilarity),
    },
    comparison,
    feedback,
    diagnostics: { rawScores: raw },
    alignment: {
      used: alignmentUsed,
      averageConfidence: averageConfidence === null ? null : round(averageConfidence * 100) / 100,
      words: alignmentWords,
      ...(alignmentUsed
        ? {}
        : { meta: { reason: request.includePronunciation ? 'no_timing' : 'pronunciation_disabled' } }),
    },
  };
}
