/**
 * `@polymodal/core`: what a user of the platform client calls. `createPolymodal()` with its eight clients,
 * confined file access, configuration, every error class, and the types of the clients, their main requests
 * and results, options and events (types only: the zod schemas are in `@polymodal/core/contracts`, the
 * constants in `@polymodal/core/constants`). The building blocks the MCP servers are made of have entry
 * points of their own (README, "Entry points"); helpers that no other package needs are not exported.
 */
export { createPolymodal, type Polymodal, type PolymodalOptions } from './client/create-polymodal.js';
export { redactSecrets } from './config/redact-secrets.js';
export { resolveConfig } from './config/resolve-config.js';
export type { MeetingLanguage, MeetingState } from './constants/meeting-constants.js';
export type { TtsLanguage, TtsModel } from './constants/speech-synthesis-constants.js';
export type { FlashcardJob, FlashcardOptions, FlashcardResult } from './contracts/flashcards.js';
export type { ChatCompletionRequest } from './contracts/llm.js';
export type { MeetingJob, TranscriptSegment } from './contracts/meeting.js';
export type { ReadingScoreResult, ReadingScoreTask } from './contracts/reading-score.js';
export type { CustomVoiceCreated, SpeechRequest } from './contracts/speech-synthesis.js';
export type { CatalogVideoRequest, VideoJob } from './contracts/video.js';
export {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InsufficientCreditsError,
  InternalServerError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  ServiceUnavailableError,
} from './errors/api-error.js';
export {
  ConfigError,
  ConnectionError,
  JobFailedError,
  LedgerError,
  PollingTimeoutError,
  PolymodalError,
  PrivateAddressError,
  ResponseValidationError,
  StreamingError,
  SubmissionInProgressError,
  TimeoutError,
  UncertainSubmissionError,
  ValidationError,
} from './errors/polymodal-error.js';
export { createFileAccess, type FileAccess, type FileAccessOptions } from './files/create-file-access.js';
export type { FlashcardsClient } from './flashcards/flashcards-types.js';
export type { CallOptions } from './http/call-options.js';
export type { JobPollOptions, JobWaitOptions } from './jobs/job-resource.js';
export type { LlmClient } from './llm/create-llm-client.js';
export type { MeetingClient } from './meeting/meeting-types.js';
export type { ReadingScoreClient } from './reading-score/reading-score-types.js';
export type { AcquireOptions, Slot, SpeechGovernor } from './speech-synthesis/concurrency-governor.js';
export type { SpeechClient } from './speech-synthesis/create-speech-client.js';
export type { SpeechTextJobOptions } from './speech-synthesis/text-synthesis-job.js';
export type { SpeechTextJob, SpeechTextOutcome } from './speech-synthesis/text-synthesis-runs.js';
export type {
  JobReadEvent,
  JobStartEvent,
  PlatformResponseEvent,
  PolymodalEvents,
} from './telemetry/polymodal-events.js';
export type { ThaiAsrClient, TranscribeResult } from './thai-asr/thai-asr-types.js';
export type { CatalogVideoClient } from './video/create-catalog-video-client.js';
export type { ImageToVideoClient } from './video/create-image-to-video-client.js';
export type { JobOutcome, JobView } from './views/job-view.js';
export type { TextSynthesisProgress } from './views/speech-job.js';
