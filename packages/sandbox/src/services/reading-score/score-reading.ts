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
import type { HeardAudio } from './analyze-student-audio.js';
import { type AlignedWord, alignTokens, levenshteinSimilarity } from './compare-tokens.js';
import { normalizeText, tokenize } from './thai-tokens.js';

export interface ReadingRequest {
  language: string;
  asrEngine: 'engine_t' | 'engine_w';
  studentId: string | null;
  lessonId: string | null;
  includePronunciation: boolean;
  referenceSource: 'referenceText' | 'referenceAudio';
}

const FOCUS_BELOW = 0.6;

const display = (raw: number) => round(80 + Math.min(100, Math.max(0, raw)) * 0.2);
const round = (value: number) => Math.round(value * 10) / 10;

function confidenceOf(word: AlignedWord): number | null {
  if (word.status === 'substitution') return 0.4;
  if (word.status !== 'correct' || word.referenceToken === null) return null;
  const hash = createHash('sha256').update(word.referenceToken).digest();
  return 0.85 + ((hash[0] ?? 0) % 10) / 100;
}

export function scoreReading(options: { referenceText: string; heard: HeardAudio; request: ReadingRequest }) {
  const { heard, request } = options;
  const referenceTokens = tokenize(options.referenceText);
  const reference = {
    text: options.referenceText,
    normalizedText: normalizeText(options.referenceText),
    tokens: referenceTokens,
    tokenCount: referenceTokens.length,
    meta: { tokenizer: 'Intl.Segmenter(th, word)' },
  };
  const studentMeta = {
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

  if (!heard.speech) return noSpeechResult({ reference, request, studentMeta });

  // Voiced audio without a known script is taken to read the reference exactly (documented).
  const attempts =
    heard.attempts.length > 0
      ? heard.attempts
      : [{ text: options.referenceText, start: 0, end: heard.durationSeconds }];
  const attemptTokens = attempts.map((attempt) => tokenize(attempt.text));
  let best = 0;
  attemptTokens.forEach((tokens, index) => {
    if (
      levenshteinSimilarity(referenceTokens, tokens) >
      levenshteinSimilarity(referenceTokens, attemptTokens[best] ?? [])
    )
      best = index;
  });
  const selected = attempts[best]!;
  const studentTokens = attemptTokens[best] ?? [];
  const tokenStartIndex = attemptTokens.slice(0, best).reduce((sum, tokens) => sum + tokens.length, 0);
  const fullTranscript = attempts.map((attempt) => attempt.text).join(' ');

  const aligned = alignTokens(referenceTokens, studentTokens);
  const wordResults = aligned.map((word) => ({
    ...word,
    pronunciationConfidence: request.includePronunciation ? confidenceOf(word) : null,
  }));
  const correct = aligned.filter((word) => word.status === 'correct').length;
  const missing = aligned.filter((word) => word.status === 'missing');
  const extra = aligned.filter((word) => word.status === 'extra');
  const substitutions = aligned.filter((word) => word.status === 'substitution');

  const alignmentUsed = request.includePronunciation && heard.hasTiming;
  const perToken = (selected.end - selected.start) / Math.max(1, studentTokens.length);
  const alignmentWords = alignmentUsed
    ? wordResults
        .filter((word) => word.studentIndex !== null && word.referenceIndex !== null)
        .map((word) => ({
          index: word.referenceIndex as number,
          word: word.referenceToken as string,
          start: round(selected.start + (word.studentIndex as number) * perToken),
          end: round(selected.start + ((word.studentIndex as number) + 1) * perToken),
          confidence: word.pronunciationConfidence,
        }))
    : [];
  const confidences = alignmentWords.map((word) => word.confidence ?? 0);
  const averageConfidence =
    confidences.length > 0 ? confidences.reduce((a, b) => a + b, 0) / confidences.length : null;

  const rawText = referenceTokens.length === 0 ? 0 : (100 * correct) / referenceTokens.length;
  const rawSimilarity = levenshteinSimilarity(referenceTokens, studentTokens);
  const rawPronunciation = alignmentUsed
    ? (100 *
        wordResults
          .filter((word) => word.referenceIndex !== null)
          .reduce((sum, word) => sum + (word.pronunciationConfidence ?? 0), 0)) /
      Math.max(1, referenceTokens.length)
    : null;
  const rawOverall =
    rawPronunciation === null
      ? 0.6 * rawText + 0.4 * rawSimilarity
      : 0.5 * rawText + 0.3 * rawSimilarity + 0.2 * rawPronunciation;

  return {
    success: true,
    assessment: {
      passed: true,
      status: 'passed',
      displayScoreMin: 80.0,
      usedBestAttemptSelection: attempts.length > 1,
    },
    request,
    reference,
    student: {
      transcript: selected.text,
      fullTranscript,
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
      meta: studentMeta,
    },
    scores: {
      overall: display(rawOverall),
      textAccuracy: display(rawText),
      pronunciation: rawPronunciation === null ? null : display(rawPronunciation),
      levenshteinSimilarity: display(rawSimilarity),
    },
    comparison: {
      correctTokenCount: correct,
      referenceTokenCount: referenceTokens.length,
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
    diagnostics: {
      rawScores: {
        overall: rawOverall,
        textAccuracy: rawText,
        pronunciation: rawPronunciation,
        levenshteinSimilarity: rawSimilarity,
      },
    },
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

function noSpeechResult(options: {
  reference: { text: string; normalizedText: string; tokens: string[]; tokenCount: number; meta: object };
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
