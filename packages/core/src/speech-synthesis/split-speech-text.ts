/**
 * Splits text longer than one speech request allows (200 characters) into parts at sentence boundaries,
 * packing whole sentences into each part. A sentence that alone is too long is split between words
 * (`Intl.Segmenter`, which also finds word boundaries in Thai, Lao, Chinese and Japanese), and a single
 * "word" that is too long between code points. Lengths count code points, as the service does.
 */
import { MAX_TTS_TEXT_CHARACTERS } from '../constants/speech-synthesis-constants.js';

const length = (text: string) => [...text].length;

export function splitSpeechText(
  text: string,
  options: { language?: string; maxCharacters?: number } = {},
): string[] {
  const max = options.maxCharacters ?? MAX_TTS_TEXT_CHARACTERS;
  const locale = options.language ?? 'en';
  const normalized = text.replace(/\s+/g, ' ').trim();
  if (normalized === '') return [];
  if (length(normalized) <= max) return [normalized];

  const sentences = [...new Intl.Segmenter(locale, { granularity: 'sentence' }).segment(normalized)]
    .map((segment) => segment.segment.trim())
    .filter((sentence) => sentence !== '');
  const pieces = sentences.flatMap((sentence) =>
    length(sentence) <= max ? [sentence] : splitLongSentence(sentence, max, locale),
  );

  const parts: string[] = [];
  let current = '';
  for (const piece of pieces) {
    const joined = current === '' ? piece : `${current}${joiner(current, piece)}${piece}`;
    if (length(joined) <= max) {
      current = joined;
    } else {
      if (current !== '') parts.push(current);
      current = piece;
    }
  }
  if (current !== '') parts.push(current);
  return parts;
}

/** A space between pieces unless the script writes without spaces (CJK, Thai after a break). */
function joiner(left: string, right: string): string {
  const noSpace = /[\u3000-\u9fff\uff00-\uffef]$/u;
  return noSpace.test(left) && /^[\u3000-\u9fff\uff00-\uffef]/u.test(right) ? '' : ' ';
}

function splitLongSentence(sentence: string, max: number, locale: string): string[] {
  const words = [...new Intl.Segmenter(locale, { granularity: 'word' }).segment(sentence)].map(
    (segment) => segment.segment,
  );
  const chunks: string[] = [];
  let current = '';
  const flush = () => {
    const trimmed = current.trim();
    if (trimmed !== '') chunks.push(trimmed);
    current = '';
  };
  for (const word of words) {
    if (length(current + word) <= max) {
      current += word;
      continue;
    }
    flush();
    if (length(word) <= max) {
      current = word;
    } else {
      const points = [...word];
      for (let start = 0; start < points.length; start += max)
        chunks.push(points.slice(start, start + max).join(''));
    }
  }
  flush();
  return chunks;
}
