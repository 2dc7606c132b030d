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
export type { SandboxUser } from './framework/accounts.js';
export type { Counters } from './framework/counters.js';
export type { ActiveFault } from './framework/fault-engine.js';
export { FAULT_KINDS, type FaultKind, FaultRule } from './framework/fault-rule.js';
export {
  LLM_BASE_PATH,
  PLANNER_MODEL_ID,
  type PlannerMessage,
  type PlannerTurn,
  planTurn,
} from './services/llm/index.js';
export { LEGACY_READING_SCORE_PATH, READING_SCORE_PATH } from './services/reading-score/index.js';
export { createThaiSpeech, THAI_ASR_PATH, THAI_PHRASES } from './services/thai-asr/index.js';
export { type Sandbox, type SandboxOptions, startSandbox } from './start-sandbox.js';
