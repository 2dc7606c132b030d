/**
 * `@polymodal/core/constants`: the services' constants and small rules without their zod schemas:
 * languages, models, limits, paths, the meeting cost rule and the service table (ledger names, metrics
 * labels, intervals, the tools that continue a job). Code that only needs these (an MCP server describing
 * its tools) does not build the contracts' schemas or load the clients.
 */
export {
  FLASHCARD_VIDEO_EXTENSIONS,
  LEARNING_DIRECTIONS,
  MAX_IDEMPOTENCY_KEY_LENGTH,
} from './constants/flashcards-constants.js';
export {
  isMeetingTerminal,
  MEETING_ASR_ENGINES,
  MEETING_CREDITS_PER_STARTED_MINUTE,
  MEETING_EXTENSIONS,
  MEETING_LANGUAGES,
  MEETING_LIST_LIMIT,
  MEETING_MAX_DURATION_SECONDS,
  MEETING_RECEIPT_LIFETIME_MS,
  MeetingAsrEngine,
  MeetingLanguage,
  meetingCost,
} from './constants/meeting-constants.js';
export {
  READING_AUDIO_EXTENSIONS,
  READING_SCORE_MAX_UPLOAD_BYTES,
} from './constants/reading-score-limits.js';
export { RECORDING_EXTENSIONS, type RecordingExtension } from './constants/recording-extensions.js';
export {
  CATALOG_VIDEO_API_PATH,
  CATALOG_VIDEO_SERVICE,
  CUSTOM_VOICE_SERVICE,
  FLASHCARDS_API_PATH,
  FLASHCARDS_SERVICE,
  IMAGE_TO_VIDEO_API_PATH,
  IMAGE_TO_VIDEO_SERVICE,
  MEETING_API_PATH,
  MEETING_SERVICE,
  type PlatformService,
  READING_SCORE_SERVICE,
  SERVICES,
  type ServiceName,
  SPEECH_SYNTHESIS_SERVICE,
  SPEECH_TEXT_SERVICE,
  serviceOf,
  TTS_API_PATH,
} from './constants/service-table.js';
export {
  MAX_TTS_SEED,
  MAX_TTS_TEXT_CHARACTERS,
  MODEL_D_LANGUAGES,
  TTS_LANGUAGES,
  TTS_LEGACY_MODEL,
  TTS_MODEL_A_EXPRESSIONS,
  TTS_MODELS,
} from './constants/speech-synthesis-constants.js';
export {
  IMAGE_TO_VIDEO_ASPECT_RATIOS,
  IMAGE_TO_VIDEO_MODELS,
  IMAGE_TO_VIDEO_RESOLUTIONS,
  inputSlots,
} from './constants/video-constants.js';
export { jobErrorText } from './errors/job-error-text.js';
