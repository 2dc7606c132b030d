/**
 * `@polymodal/core`: what a user of the platform client calls. `createPolymodal()` with its eight clients,
 * confined file access, configuration, every error class, and the types of every request, result and
 * option (types only: the zod schemas and constants are in `@polymodal/core/contracts`). The building
 * blocks the MCP servers are made of have entry points of their own (README, "Entry points"); helpers that
 * no other package needs are not exported at all.
 */
export * from './client/index.js';
export * from './config/index.js';
export type * from './contracts/index.js';
export * from './errors/index.js';
export {
  ALLOWED_DIRS_VARIABLE,
  createFileAccess,
  type FileAccess,
  type FileAccessOptions,
  OUTPUT_DIR_VARIABLE,
} from './files/index.js';
export type * from './flashcards/index.js';
// Types only: the per-call options of every method; requests, results and options of every client; events.
export type { CallOptions } from './http/index.js';
// The options of every client's `poll` and `wait`, and the view of a job every answer shows.
export type { JobOutcome, JobPollOptions, JobView, JobWaitOptions } from './jobs/index.js';
export type * from './llm/index.js';
export type * from './meeting/index.js';
export type * from './reading-score/index.js';
export type * from './speech-synthesis/index.js';
export type * from './telemetry/index.js';
export type * from './thai-asr/index.js';
export type * from './video/index.js';
export type { TextSynthesisProgress } from './views/speech-job.js';
