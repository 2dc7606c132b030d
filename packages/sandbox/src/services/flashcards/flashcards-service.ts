/**
 * The video flashcards service (`/api/video-flashcards/v1`): jobs from an uploaded video (multipart,
 * streamed to disk, duration read from the file) or from a URL (YouTube watch/Shorts/short links, or a
 * public direct video URL under the private-network and redirect rules), per-key limits (requests per
 * minute, concurrent jobs, daily video minutes) reported in every start response and enforced, idempotent
 * starts, and status with `ready`/`successful`/`progress`/`media`/`result`/`error` computed from the clock.
 *
 * This module wires the routes to their handlers and owns the service's lifecycle; each route lives in a
 * module of its own, over the state of flashcards-state.ts.
 */
import { rm } from 'node:fs/promises';
import { FLASHCARDS_API_PATH } from '@polymodal/core/constants';
import type { Router } from '../../framework/router.js';
import type { SandboxService, ServiceContext } from '../../framework/sandbox-service.js';
import { getJob } from './flashcard-status.js';
import { createFlashcardsState, type FlashcardsState } from './flashcards-state.js';
import { startFromUpload } from './start-from-upload.js';
import { startFromUrl } from './start-from-url.js';

export { FLASHCARDS_API_PATH };

/** Forgets every job, key and file, and removes the stored uploads. */
async function removeAll(state: FlashcardsState): Promise<void> {
  const paths = [...state.jobs.values()].flatMap((job) => (job.source.file ? [job.source.file.path] : []));
  state.jobs.clear();
  state.idempotency.clear();
  state.rate.clear();
  state.files.clear();
  await Promise.all(paths.map((file) => rm(file, { force: true })));
}

export function createFlashcardsService(context: ServiceContext): SandboxService {
  const state = createFlashcardsState(context);
  return {
    name: 'flashcards',
    register(router: Router) {
      router.route('POST', `${FLASHCARDS_API_PATH}/jobs`, (request) => startFromUpload(state, request));
      router.route('POST', `${FLASHCARDS_API_PATH}/jobs/from-url`, (request) => startFromUrl(state, request));
      router.route('GET', `${FLASHCARDS_API_PATH}/jobs/:jobId`, (request) => getJob(state, request));
      state.files.register(router);
    },
    settle() {
      // State is computed from the clock on every look.
    },
    reset: () => removeAll(state),
    close: () => removeAll(state),
  };
}
