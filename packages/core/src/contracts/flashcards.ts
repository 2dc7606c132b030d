/**
 * Wire contracts of the video flashcards service (`/api/video-flashcards/v1`), from
 * spec/media-generation.md. Responses are lenient; requests are checked before they are sent.
 */
import { z } from 'zod';

import { LEARNING_DIRECTIONS, MAX_IDEMPOTENCY_KEY_LENGTH } from '../constants/flashcards-constants.js';

export const FlashcardOptions = z.object({
  learning_direction: z.enum(LEARNING_DIRECTIONS),
  source_language: z.string().min(1).optional(),
  target_language: z.string().min(1).optional(),
  skip_vocal_separation: z.boolean().optional(),
  max_words_per_segment: z.number().int().min(1).max(80).optional(),
  include_rendered_segments: z.boolean().optional(),
  include_original_segments: z.boolean().optional(),
  idempotency_key: z.string().min(1).max(MAX_IDEMPOTENCY_KEY_LENGTH).optional(),
});
export type FlashcardOptions = z.infer<typeof FlashcardOptions>;

export const FlashcardLimits = z.looseObject({
  requests_per_minute: z.number().nullable().optional(),
  concurrent_video_jobs: z.number().nullable().optional(),
  daily_video_minutes: z.number().nullable().optional(),
  today_video_minutes_used: z.number().nullable().optional(),
  max_video_duration_seconds: z.number().nullable().optional(),
  max_upload_bytes: z.number().nullable().optional(),
});
export type FlashcardLimits = z.infer<typeof FlashcardLimits>;

export const FlashcardStart = z.looseObject({
  success: z.boolean().optional(),
  job_id: z.string(),
  status: z.string(),
  statusPath: z.string().optional(),
  limits: FlashcardLimits.optional(),
});
export type FlashcardStart = z.infer<typeof FlashcardStart>;

export const WordItem = z.looseObject({
  word: z.string(),
  pronunciation: z.string().nullable().optional(),
  meaning: z.string().nullable().optional(),
  meaning_en: z.string().nullable().optional(),
  start: z.number().nullable().optional(),
  end: z.number().nullable().optional(),
  probability: z.number().nullable().optional(),
});
export type WordItem = z.infer<typeof WordItem>;

export const FlashcardSegment = z.looseObject({
  index: z.number(),
  start: z.number(),
  end: z.number(),
  duration: z.number().optional(),
  text: z.string(),
  translation: z.string().nullable().optional(),
  translation_en: z.string().nullable().optional(),
  word_items: z.array(WordItem).default([]),
  video: z
    .looseObject({
      original_segment_url: z.string().nullable().optional(),
      rendered_segment_url: z.string().nullable().optional(),
      content_type: z.string().nullable().optional(),
      has_word_cards: z.boolean().optional(),
    })
    .nullable()
    .optional(),
});
export type FlashcardSegment = z.infer<typeof FlashcardSegment>;

export const FlashcardResult = z.looseObject({
  learning_direction: z.string(),
  source_language: z.string(),
  target_language: z.string(),
  media: z
    .looseObject({
      title: z.string().nullable().optional(),
      duration: z.number().nullable().optional(),
      source_url: z.string().nullable().optional(),
      original_video_url: z.string().nullable().optional(),
    })
    .optional(),
  transcript: z
    .looseObject({
      text: z.string(),
      language: z.string().optional(),
      segments: z.array(
        z.looseObject({ index: z.number(), start: z.number(), end: z.number(), text: z.string() }),
      ),
    })
    .optional(),
  segments: z.array(FlashcardSegment),
});
export type FlashcardResult = z.infer<typeof FlashcardResult>;

export const FlashcardJob = z.looseObject({
  job_id: z.string(),
  status: z.string(),
  ready: z.boolean(),
  successful: z.boolean().nullable().optional(),
  progress: z
    .looseObject({
      percent: z.number().optional(),
      stage: z.string().optional(),
      message: z.string().optional(),
    })
    .nullable()
    .optional(),
  media: z
    .looseObject({ title: z.string().nullable().optional(), duration: z.number().nullable().optional() })
    .nullable()
    .optional(),
  result: FlashcardResult.nullable().optional(),
  error: z.looseObject({ code: z.string().optional(), message: z.string().optional() }).nullable().optional(),
});
export type FlashcardJob = z.infer<typeof FlashcardJob>;
