export {
  LEARNING_DIRECTIONS,
  type LearningDirection,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  youtubeVideoId,
} from './flashcard-options.js';
export {
  createFlashcardsService,
  FLASHCARDS_API_PATH,
  FLASHCARDS_COUNTER,
  VIDEO_EXTENSIONS,
} from './flashcards-service.js';
