import { describe, expect, it } from 'vitest';
import { buildFlashcards } from './build-flashcards.js';
import { PHRASE_BANKS } from './phrase-banks.js';

describe('buildFlashcards', () => {
  const base = {
    fingerprint: 'video-1',
    durationSeconds: 30,
    source: 'zh' as const,
    target: 'vi' as const,
    maxWordsPerSegment: 15,
  };

  it('is deterministic per source and fits the duration', () => {
    const first = buildFlashcards(base);
    expect(buildFlashcards(base)).toEqual(first);
    expect(buildFlashcards({ ...base, fingerprint: 'video-2' })).not.toEqual(first);
    const last = first.segments.at(-1)!;
    expect(last.end).toBeLessThanOrEqual(30);
    expect(first.transcript.language).toBe('zh');
    for (const segment of first.segments) {
      expect(segment.word_items.length).toBeLessThanOrEqual(15);
      expect(segment.text).toBe(segment.word_items.map((item) => item.word).join(''));
      expect(segment.duration).toBeCloseTo(segment.end - segment.start, 3);
    }
  });

  it('gives shorter segments for lower max_words_per_segment, one word each at 1', () => {
    const one = buildFlashcards({ ...base, maxWordsPerSegment: 1 });
    const many = buildFlashcards({ ...base, maxWordsPerSegment: 80 });
    expect(one.segments.every((segment) => segment.word_items.length === 1)).toBe(true);
    expect(many.segments.length).toBeLessThan(one.segments.length);
    expect(one.segments[0]!.translation).toBe(one.segments[0]!.word_items[0]!.meaning);
  });

  it('translates whole phrases into the target and English', () => {
    const cards = buildFlashcards({
      ...base,
      source: 'th',
      target: 'zh',
      maxWordsPerSegment: 4,
      durationSeconds: 120,
    });
    const phrases = new Map(PHRASE_BANKS.th.map((phrase) => [phrase.text, phrase]));
    const whole = cards.segments.filter((segment) => phrases.has(segment.text));
    expect(whole.length).toBeGreaterThan(3);
    for (const segment of whole) {
      const phrase = phrases.get(segment.text)!;
      expect(segment).toMatchObject({
        translation: phrase.translations.zh,
        translation_en: phrase.translations.en,
      });
    }
    expect(cards.segments.every((segment) => /\p{Script=Han}|（/u.test(segment.translation))).toBe(true);
  });

  it('gives a very short video at least one word', () => {
    const cards = buildFlashcards({ ...base, durationSeconds: 0.5 });
    expect(cards.segments.length).toBe(1);
    expect(cards.segments[0]!.end).toBeLessThanOrEqual(0.5);
  });
});
