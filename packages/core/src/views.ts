/**
 * `@polymodal/core/views`: each service's job as every long-job answer shows it (status, progress, how it
 * stopped and why). Like the constants, it builds no schema and loads no client.
 */
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
export { videoJobView } from './views/video-job.js';
