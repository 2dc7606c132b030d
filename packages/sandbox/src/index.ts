/**
 * @polymodal/sandbox: the Polymodal platform simulated on one machine, for integration tests, demos and
 * offline work. Start it with `startSandbox()`, steer it with `sandbox.control`, and generate recordings
 * with `createMeetingRecording()`.
 */

export { loadSandboxConfig } from './config/load-sandbox-config.js';
export type { SandboxKeys } from './config/resolve-users.js';
export {
  DEFAULT_MAX_DURATION_SECONDS,
  DEFAULT_MAX_UPLOAD_BYTES,
  DEFAULT_MINIMUM_CREDITS,
  DEFAULT_USER_CREDITS,
  KEY_PREFIX,
  type ParsedSandboxConfig,
  parseSandboxConfig,
  SandboxConfig,
  SandboxConfigError,
  SandboxFeatures,
  SandboxKeyConfig,
  SandboxLimits,
  SandboxUserConfig,
} from './config/sandbox-config.js';
export type { SandboxControl } from './control/sandbox-control.js';
export {
  createMeetingRecording,
  layoutMeetingScript,
  type MeetingRecordingOptions,
  type MeetingScriptLine,
  writeMeetingRecording,
} from './fixtures/create-meeting-recording.js';
export {
  createReadingRecording,
  type ReadingRecordingOptions,
  SAMPLE_READING_TEXT,
  writeReadingRecording,
} from './fixtures/create-reading-recording.js';
export {
  parseRecordingScript,
  type RecordingScript,
  readRecordingScript,
} from './fixtures/recording-script.js';
export { SAMPLE_MEETING_SCRIPT } from './fixtures/sample-meeting-script.js';
export type { Accounts, SandboxUser } from './framework/accounts.js';
export type { KeyScheme, Principal } from './framework/authenticator.js';
export type { Clock } from './framework/clock.js';
export type { CounterRegistry, Counters } from './framework/counters.js';
export type { ActiveFault } from './framework/fault-engine.js';
export {
  DEFAULT_MALFORMED_FRAME,
  FAULT_KINDS,
  type FaultKind,
  FaultRule,
  WEB_SOCKET_FAULT_KINDS,
} from './framework/fault-rule.js';
export { HttpError, type HttpErrorOptions } from './framework/http-error.js';
export type { RequestContext } from './framework/request-context.js';
export type { LoggedRequest, RequestLogFilter } from './framework/request-log.js';
export { REQUEST_LOG_LIMIT } from './framework/request-log.js';
export type { RouteHandler, Router } from './framework/router.js';
export { json, type SandboxResponse } from './framework/sandbox-response.js';
export type { SandboxService, ServiceContext, ServiceFactory } from './framework/sandbox-service.js';
export {
  scaled,
  type TimelinePhase,
  type TimelinePosition,
  timelinePosition,
} from './media/job-timeline.js';
export {
  MediaConfig,
  type ParsedMediaConfig,
  PublicMediaEntry,
} from './media/media-config.js';
export { readMediaFixture, SAMPLE_VIDEO_SECONDS, sampleVideo } from './media/media-fixtures.js';
export { CANCEL_MARKER, FAIL_MARKER, MAX_SAFE_SEED } from './media/media-request.js';
export { synthesizeVoice, type VoiceOptions, voiceDurationSeconds } from './media/synthesize-voice.js';
export {
  CATALOG_MODELS,
  CATALOG_PROVIDER,
  CATALOG_VIDEO_API_PATH,
  type CatalogModel,
  type CatalogParameter,
} from './services/catalog-video/index.js';
export {
  FLASHCARDS_API_PATH,
  LEARNING_DIRECTIONS,
  type LearningDirection,
  MAX_IDEMPOTENCY_KEY_LENGTH,
} from './services/flashcards/index.js';
export {
  IMAGE_TO_VIDEO_API_PATH,
  IMAGE_TO_VIDEO_DEFAULT_MODEL,
  IMAGE_TO_VIDEO_MODELS,
} from './services/image-to-video/index.js';
export {
  LLM_BASE_PATH,
  PLANNER_MODEL_ID,
  type PlannerMessage,
  type PlannerTurn,
  planTurn,
} from './services/llm/index.js';
export { LEGACY_READING_SCORE_PATH, READING_SCORE_PATH } from './services/reading-score/index.js';
export {
  BUILT_IN_SPEAKERS,
  defaultModelFor,
  LEGACY_MODEL,
  MAX_TEXT_CHARACTERS,
  TTS_API_PATH,
  TTS_LANGUAGES,
  TTS_MODELS,
} from './services/speech-synthesis/index.js';
export { createThaiSpeech, THAI_ASR_PATH, THAI_PHRASES } from './services/thai-asr/index.js';
export { type Sandbox, type SandboxOptions, startSandbox } from './start-sandbox.js';
