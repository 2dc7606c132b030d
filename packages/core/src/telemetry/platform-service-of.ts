/**
 * The service a request path belongs to, as a bounded label for telemetry: the path itself holds job ids
 * and would give every job its own series.
 */
import { FLASHCARDS_API_PATH } from '../contracts/flashcards.js';
import { LLM_API_PATH } from '../contracts/llm.js';
import { MEETING_API_PATH } from '../contracts/meeting.js';
import { LEGACY_READING_SCORE_API_PATH, READING_SCORE_API_PATH } from '../contracts/reading-score.js';
import { TTS_API_PATH } from '../contracts/speech-synthesis.js';
import { THAI_ASR_API_PATH } from '../contracts/thai-asr.js';
import { CATALOG_VIDEO_API_PATH, IMAGE_TO_VIDEO_API_PATH } from '../contracts/video.js';

const SERVICES: readonly (readonly [prefix: string, service: string])[] = [
  [MEETING_API_PATH, 'meeting'],
  [TTS_API_PATH, 'speech'],
  [FLASHCARDS_API_PATH, 'flashcards'],
  [LLM_API_PATH, 'llm'],
  [CATALOG_VIDEO_API_PATH, 'catalog-video'],
  [IMAGE_TO_VIDEO_API_PATH, 'image-to-video'],
  [THAI_ASR_API_PATH, 'thai-asr'],
  [READING_SCORE_API_PATH, 'reading-score'],
  [LEGACY_READING_SCORE_API_PATH, 'reading-score'],
];

/** `meeting`, `speech`, … for a platform path; `other` for anything else. */
export function platformServiceOf(path: string): string {
  for (const [prefix, service] of SERVICES) {
    if (path === prefix || path.startsWith(`${prefix}/`) || path.startsWith(`${prefix}?`)) return service;
  }
  return 'other';
}
