/**
 * `@polymodal/core/constants`: the services' constants and small rules without their zod schemas (the
 * contracts subpath has both): languages, models, states, limits, the meeting cost rule, the service table
 * (ledger names, paths, metrics labels, intervals, the tools that continue a job) and each job's view.
 * Code that only needs these (an MCP server describing its tools or answering with a job) does not build
 * the contracts' schemas or load the clients.
 */
export * from './constants/flashcards-constants.js';
export * from './constants/meeting-constants.js';
export { READING_SCORE_MAX_UPLOAD_BYTES } from './constants/reading-score-limits.js';
export * from './constants/service-table.js';
export * from './constants/speech-synthesis-constants.js';
export * from './constants/video-constants.js';
export { flashcardsJobView } from './views/flashcards-job.js';
export type { JobOutcome, JobView } from './views/job-view.js';
export { meetingJobView } from './views/meeting-job.js';
export { readingTaskView } from './views/reading-score-job.js';
export {
  describeSpeechProgress,
  speechTextReason,
  speechTextView,
  TEXT_SYNTHESIS_STATUS,
} from './views/speech-job.js';
export { videoJobView, videoProgressPercent } from './views/video-job.js';
