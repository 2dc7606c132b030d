/**
 * Deterministic flashcard material for a video: phrases of the source language drawn by a generator seeded
 * with the source's fingerprint (same video, same transcript), laid out at about two words per second
 * within the video's duration, then grouped into segments of at most `max_words_per_segment` words (whole
 * phrases merge while they fit; a longer phrase is cut into chunks whose translation is the words' meanings).
 */
import { createHash } from 'node:crypto';
import { createPrng } from '../../framework/create-prng.js';
import { type BankPhrase, type FlashcardLanguage, PHRASE_BANKS, WORD_JOINER } from './phrase-banks.js';

const WORD_SECONDS = 0.45;
const WORD_GAP_SECONDS = 0.05;
const PHRASE_GAP_SECONDS = 0.3;
const LEAD_SECONDS = 0.4;
const MAX_WORDS = 2000;

export interface TimedWord {
  word: string;
  pronunciation: string;
  meaning: string;
  meaning_en: string;
  start: number;
  end: number;
  probability: number;
}

interface Piece {
  phrase: BankPhrase;
  words: TimedWord[];
  whole: boolean;
}

export interface FlashcardSegment {
  index: number;
  start: number;
  end: number;
  duration: number;
  text: string;
  translation: string;
  translation_en: string;
  word_items: TimedWord[];
}

export interface FlashcardMaterial {
  transcript: {
    text: string;
    language: string;
    segments: { index: number; start: number; end: number; text: string }[];
  };
  segments: FlashcardSegment[];
}

const round = (value: number) => Math.round(value * 1000) / 1000;

export function buildFlashcards(options: {
  fingerprint: string;
  durationSeconds: number;
  source: 'th' | 'zh' | 'ko' | 'ja';
  target: FlashcardLanguage;
  maxWordsPerSegment: number;
}): FlashcardMaterial {
  const { source, target } = options;
  const bank = PHRASE_BANKS[source];
  const random = createPrng(createHash('sha256').update(options.fingerprint).digest().readUInt32LE(0));
  const scale = Math.min(1, options.durationSeconds / 2); // very short videos still get one word
  const pieces: Piece[] = [];
  let cursor = LEAD_SECONDS * scale;
  let count = 0;
  let phraseIndex = Math.floor(random() * bank.length);
  outer: while (count < MAX_WORDS) {
    const phrase = bank[phraseIndex % bank.length]!;
    phraseIndex += 1 + Math.floor(random() * 2);
    const words: TimedWord[] = [];
    for (const word of phrase.words) {
      const end = cursor + WORD_SECONDS * scale;
      if (end > options.durationSeconds - 0.05 && count > 0) {
        if (words.length) pieces.push({ phrase, words, whole: false });
        break outer;
      }
      words.push({
        word: word.word,
        pronunciation: word.pronunciation,
        meaning: word.meanings[target] ?? word.meanings.en,
        meaning_en: word.meanings.en,
        start: round(cursor),
        end: round(end),
        probability: round(0.8 + random() * 0.19),
      });
      count++;
      cursor = end + WORD_GAP_SECONDS * scale;
    }
    pieces.push({ phrase, words, whole: true });
    cursor += PHRASE_GAP_SECONDS * scale;
  }

  const sourceText = (words: TimedWord[]) => words.map((word) => word.word).join(WORD_JOINER[source]);
  const groups: Piece[][] = [];
  for (const piece of pieces) {
    const max = options.maxWordsPerSegment;
    if (piece.words.length > max) {
      for (let offset = 0; offset < piece.words.length; offset += max) {
        groups.push([{ phrase: piece.phrase, words: piece.words.slice(offset, offset + max), whole: false }]);
      }
      continue;
    }
    const last = groups.at(-1);
    const lastCount = last?.reduce((sum, entry) => sum + entry.words.length, 0) ?? 0;
    const fits = piece.whole && lastCount + piece.words.length <= max;
    if (last?.every((entry) => entry.whole) && fits) last.push(piece);
    else groups.push([piece]);
  }
  const sentenceJoin = (language: FlashcardLanguage | 'en') =>
    language === 'zh' || language === 'ja' ? '' : ' ';
  const segments = groups.map((group, index): FlashcardSegment => {
    const words = group.flatMap((piece) => piece.words);
    const whole = group.every((piece) => piece.whole);
    const start = words[0]!.start;
    const end = words.at(-1)!.end;
    return {
      index,
      start,
      end,
      duration: round(end - start),
      text: group.map((piece) => sourceText(piece.words)).join(WORD_JOINER[source] || ''),
      translation: whole
        ? group
            .map((piece) => piece.phrase.translations[target] ?? piece.phrase.translations.en)
            .join(sentenceJoin(target))
        : words.map((word) => word.meaning).join(WORD_JOINER[target]),
      translation_en: whole
        ? group.map((piece) => piece.phrase.translations.en).join('. ')
        : words.map((word) => word.meaning_en).join(' '),
      word_items: words,
    };
  });
  const transcriptSegments = pieces.map((piece, index) => ({
    index,
    start: piece.words[0]!.start,
    end: piece.words.at(-1)!.end,
    text: sourceText(piece.words),
  }));
  return {
    transcript: {
      text: transcriptSegments.map((segment) => segment.text).join(source === 'ko' ? ' ' : ''),
      language: source,
      segments: transcriptSegments,
    },
    segments,
  };
}
