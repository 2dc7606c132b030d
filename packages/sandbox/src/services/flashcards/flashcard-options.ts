/**
 * The options shared by both flashcard start routes, read from JSON (typed values) or from multipart
 * fields (strings): learning direction and the explicit language pair rule, vocal separation, segment
 * length, include flags and the idempotency key.
 */
import { HttpError } from '../../framework/http-error.js';
import type { FlashcardLanguage } from './phrase-banks.js';

export const LEARNING_DIRECTIONS = {
  thai_to_chinese: { source: 'th', target: 'zh' },
  chinese_to_thai: { source: 'zh', target: 'th' },
  chinese_to_vietnamese: { source: 'zh', target: 'vi' },
  korean_to_chinese: { source: 'ko', target: 'zh' },
  japanese_to_chinese: { source: 'ja', target: 'zh' },
} as const satisfies Record<string, { source: 'th' | 'zh' | 'ko' | 'ja'; target: FlashcardLanguage }>;
export type LearningDirection = keyof typeof LEARNING_DIRECTIONS;

import { MAX_IDEMPOTENCY_KEY_LENGTH } from '@polymodal/core/constants';

export { MAX_IDEMPOTENCY_KEY_LENGTH };
export const OPTION_FIELDS = [
  'learning_direction',
  'source_language',
  'target_language',
  'skip_vocal_separation',
  'max_words_per_segment',
  'include_rendered_segments',
  'include_original_segments',
  'idempotency_key',
] as const;

export interface FlashcardOptions {
  learningDirection: LearningDirection;
  sourceLanguage: 'th' | 'zh' | 'ko' | 'ja';
  targetLanguage: FlashcardLanguage;
  skipVocalSeparation: boolean;
  maxWordsPerSegment: number;
  includeRenderedSegments: boolean;
  includeOriginalSegments: boolean;
  idempotencyKey: string | undefined;
}

function readBoolean(value: unknown, field: string, fallback: boolean, fromForm: boolean): boolean {
  if (value === undefined || value === null || value === '') return fallback;
  if (typeof value === 'boolean') return value;
  if (fromForm && typeof value === 'string') {
    const lower = value.trim().toLowerCase();
    if (['true', '1', 'yes'].includes(lower)) return true;
    if (['false', '0', 'no'].includes(lower)) return false;
  }
  throw new HttpError(400, `${field} must be a boolean${fromForm ? ' ("true" or "false")' : ''}`, {
    fields: { success: false, code: 'invalid_request' },
  });
}

const invalid = (message: string) =>
  new HttpError(400, message, { fields: { success: false, code: 'invalid_request' } });

/** Reads the options; `fromForm` accepts the string forms multipart fields carry. */
export function parseFlashcardOptions(values: Record<string, unknown>, fromForm: boolean): FlashcardOptions {
  const direction = values.learning_direction;
  if (typeof direction !== 'string' || !(direction in LEARNING_DIRECTIONS)) {
    throw invalid(`learning_direction is required: one of ${Object.keys(LEARNING_DIRECTIONS).join(', ')}`);
  }
  const pair = LEARNING_DIRECTIONS[direction as LearningDirection];
  for (const [field, expected] of [
    ['source_language', pair.source],
    ['target_language', pair.target],
  ] as const) {
    const value = values[field];
    if (value === undefined || value === null || value === '') continue;
    if (typeof value !== 'string' || value.trim().toLowerCase() !== expected) {
      throw invalid(`${field} does not match learning_direction ${direction} (expected ${expected})`);
    }
  }
  let maxWords = 15;
  const rawMax = values.max_words_per_segment;
  if (rawMax !== undefined && rawMax !== null && rawMax !== '') {
    const number =
      typeof rawMax === 'number'
        ? rawMax
        : fromForm && typeof rawMax === 'string' && /^\s*-?\d+\s*$/.test(rawMax)
          ? Number(rawMax)
          : Number.NaN;
    if (!Number.isInteger(number) || number < 1 || number > 80) {
      throw invalid('max_words_per_segment must be an integer from 1 to 80');
    }
    maxWords = number;
  }
  const key = values.idempotency_key;
  if (
    key !== undefined &&
    key !== null &&
    (typeof key !== 'string' || key.length > MAX_IDEMPOTENCY_KEY_LENGTH)
  ) {
    throw invalid(`idempotency_key must be a string of at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
  }
  return {
    learningDirection: direction as LearningDirection,
    sourceLanguage: pair.source,
    targetLanguage: pair.target,
    skipVocalSeparation: readBoolean(values.skip_vocal_separation, 'skip_vocal_separation', false, fromForm),
    maxWordsPerSegment: maxWords,
    includeRenderedSegments: readBoolean(
      values.include_rendered_segments,
      'include_rendered_segments',
      true,
      fromForm,
    ),
    includeOriginalSegments: readBoolean(
      values.include_original_segments,
      'include_original_segments',
      true,
      fromForm,
    ),
    idempotencyKey: typeof key === 'string' && key !== '' ? key : undefined,
  };
}

const YOUTUBE_ID = /^[A-Za-z0-9_-]{11}$/;

/** The video id of a YouTube watch, Shorts or short-link URL, or undefined. */
export function youtubeVideoId(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
  const host = parsed.hostname.toLowerCase();
  let id: string | undefined;
  if (host === 'youtu.be') id = parsed.pathname.split('/')[1];
  else if (['youtube.com', 'www.youtube.com', 'm.youtube.com'].includes(host)) {
    if (parsed.pathname === '/watch') id = parsed.searchParams.get('v') ?? undefined;
    else if (parsed.pathname.startsWith('/shorts/')) id = parsed.pathname.split('/')[2];
  }
  return id && YOUTUBE_ID.test(id) ? id : undefined;
}
