export {
  LEARNING_DIRECTIONS,
  type LearningDirection,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  youtubeVideoId,
} from './flashcard-options.js';
export { createFlashcardsService, FLASHCARDS_API_PATH } from './flashcards-service.js';
export { FLASHCARDS_COUNTER } from './start-flashcard-job.js';
export { VIDEO_EXTENSIONS } from './start-from-upload.js';
