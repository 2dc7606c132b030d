/**
 * Thai text normalisation and word tokenisation with Intl.Segmenter (Thai is written without spaces).
 */
const segmenter = new Intl.Segmenter('th', { granularity: 'word' });

/** NFC, lower case, punctuation and symbols removed, whitespace collapsed. */
export function normalizeText(text: string): string {
  return text
    .normalize('NFC')
    .toLowerCase()
    .replace(/[\p{P}\p{S}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const segment of segmenter.segment(normalizeText(text))) {
    if (segment.isWordLike) tokens.push(segment.segment);
  }
  return tokens;
}
