/**
 * The flashcards service's constants (directions, limits, states), apart from its schemas: code that needs
 * only these does not build the schemas.
 */
export const LEARNING_DIRECTIONS = [
  'thai_to_chinese',
  'chinese_to_thai',
  'chinese_to_vietnamese',
  'korean_to_chinese',
  'japanese_to_chinese',
] as const;
export type LearningDirection = (typeof LEARNING_DIRECTIONS)[number];

/**
 * Language codes of each direction. The spec shows only `th`/`zh` for thai_to_chinese; the others are
 * the ISO 639-1 codes of the languages the direction names, which is what the sample's pattern implies.
 */
export const DIRECTION_LANGUAGES: Readonly<Record<LearningDirection, { source: string; target: string }>> = {
  thai_to_chinese: { source: 'th', target: 'zh' },
  chinese_to_thai: { source: 'zh', target: 'th' },
  chinese_to_vietnamese: { source: 'zh', target: 'vi' },
  korean_to_chinese: { source: 'ko', target: 'zh' },
  japanese_to_chinese: { source: 'ja', target: 'zh' },
};

export const FLASHCARD_VIDEO_EXTENSIONS = [
  '.mp4',
  '.mov',
  '.mkv',
  '.webm',
  '.m4v',
  '.avi',
  '.mpeg',
  '.mpg',
] as const;
export const FLASHCARDS_MAX_UPLOAD_BYTES = 524_288_000;
export const FLASHCARDS_MAX_VIDEO_SECONDS = 900;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 180;
export const FLASHCARD_TERMINAL_STATES: readonly string[] = ['done', 'failed', 'cancelled', 'canceled'];
