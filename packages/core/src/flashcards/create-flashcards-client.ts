/**
 * Client of the video flashcards service (`/api/video-flashcards/v1`): a job started at most once from a
 * local video or a URL (`start-flashcards.ts`, which says how the idempotency key makes that safe), and
 * read, polled and waited for on the job engine (`flashcard-jobs.ts`).
 */
import { createJobEngine } from '../jobs/create-job-engine.js';
import { defineFlashcardJobs } from './flashcard-jobs.js';
import type { FlashcardsClient, FlashcardsClientOptions } from './flashcards-types.js';
import { type FlashcardsDeps, startFlashcardsFromFile, startFlashcardsFromUrl } from './start-flashcards.js';

export function createFlashcardsClient(options: FlashcardsClientOptions): FlashcardsClient {
  const { http } = options;
  const engine = options.engine ?? createJobEngine();
  const jobs = defineFlashcardJobs({ http, engine, pollIntervalMs: options.pollIntervalMs });
  const deps: FlashcardsDeps = { http, engine, files: options.files, jobs, limits: undefined };
  return {
    startFromFile: (file, input, extra) => startFlashcardsFromFile(deps, file, input, extra),
    startFromUrl: (url, input, extra) => startFlashcardsFromUrl(deps, url, input, extra),
    retrieve: jobs.retrieve,
    poll: jobs.poll,
    wait: jobs.wait,
    get limits() {
      return deps.limits;
    },
  };
}
