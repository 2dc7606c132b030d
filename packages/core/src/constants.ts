/**
 * `@polymodal/core/constants`: the services' constants and small rules without their zod schemas (the
 * contracts subpath has both): languages, models, states, limits, the meeting cost rule, the service table
 * (ledger names, paths, metrics labels, intervals, the tools that continue a job) and each job's view.
 * Code that only needs these (an MCP server describing its tools or answering with a job) does not build
 * the contracts' schemas or load the clients.
 */
export * from './contracts/flashcards-constants.js';
export * from './contracts/meeting-constants.js';
export * from './contracts/speech-synthesis-constants.js';
export * from './contracts/video-constants.js';
export { flashcardsJobView } from './flashcards/flashcards-job.js';
export type { JobOutcome, JobView } from './jobs/job-view.js';
export { meetingJobView } from './meeting/meeting-job.js';
export { readingTaskView } from './reading-score/reading-score-job.js';
export { READING_SCORE_MAX_UPLOAD_BYTES } from './reading-score/reading-score-limits.js';
export * from './services/service-table.js';
export {
  describeSpeechProgress,
  speechTextReason,
  speechTextView,
  TEXT_SYNTHESIS_STATUS,
} from './speech-synthesis/speech-job.js';
export { inputSlots } from './video/validate-catalog-request.js';
export { videoJobView, videoProgressPercent } from './video/video-job.js';
