/**
 * The image-to-video service (`/api/imgvid/v1`): one image (data URL, same-site `/uploads/...` path or
 * public http(s) URL; JPG, PNG or WEBP by signature, at most 25 MiB; private hosts and redirects refused)
 * plus a prompt become a video job. Model aliases map to the distilled or the full variant; the full
 * variant takes longer. Done jobs answer an absolute `video.url` of a playable MP4.
 */

import { IMAGE_TO_VIDEO_API_PATH } from '@polymodal/core/constants';
import type { RequestContext } from '../../framework/request-context.js';
import type { Router } from '../../framework/router.js';
import { json, type SandboxResponse } from '../../framework/sandbox-response.js';
import type { SandboxService, ServiceContext } from '../../framework/sandbox-service.js';
import { scaled } from '../../media/job-timeline.js';
import { absoluteUrl, createMediaFiles, type MediaFiles } from '../../media/media-files.js';
import {
  authenticateMedia,
  CANCEL_MARKER,
  FAIL_MARKER,
  hasMarker,
  readObject,
  recordJob,
} from '../../media/media-request.js';
import { createVideoJobs, type VideoJobs } from '../../media/video-jobs.js';
import { parseVideoRequest } from './video-request.js';

export { IMAGE_TO_VIDEO_API_PATH };
export const IMAGE_TO_VIDEO_COUNTER = 'imageToVideoJobs';
/** JSON bodies may carry a 25 MiB image as base64 (4/3 larger) plus the other fields. */
const MAX_JSON_BYTES = 36 * 1024 * 1024;

interface ImageToVideoState {
  context: ServiceContext;
  files: MediaFiles;
  jobs: VideoJobs;
}

async function create(state: ImageToVideoState, request: RequestContext): Promise<SandboxResponse> {
  const { context, jobs } = state;
  const { user } = authenticateMedia(request);
  const body = await readObject(request, MAX_JSON_BYTES);
  const video = parseVideoRequest(body, context.config.media);
  const { model, variant, prompt, duration } = video;
  const canceled = hasMarker(prompt, CANCEL_MARKER);
  const failed = hasMarker(prompt, FAIL_MARKER);
  // The full variant takes longer per second of video than the distilled one.
  const perSecond = variant === 'full' ? 4 : 1.5;
  const job = jobs.create({
    userId: user.id,
    queuedMs: scaled(1, context.speed),
    processingMs: scaled(2 + perSecond * duration, context.speed),
    outcome: canceled ? 'canceled' : failed ? 'failed' : 'done',
    errorMessage: 'generation failed: the backend rejected the prompt',
    fields: { model },
    progressFields: { variant },
  });
  Object.assign(job.fields, {
    variant,
    duration,
    aspect_ratio: video.aspectRatio,
    resolution: video.resolution,
    seed: video.seed ?? null,
  });
  recordJob(context.counters, user, IMAGE_TO_VIDEO_COUNTER);
  return json(202, { request_id: job.id, status: 'queued', model });
}

function get(state: ImageToVideoState, request: RequestContext): SandboxResponse {
  const { user } = authenticateMedia(request);
  const job = state.jobs.find(request.params.id!, user.id);
  return json(
    200,
    state.jobs.view(job, (path) => absoluteUrl(request, path)),
  );
}

export function createImageToVideoService(context: ServiceContext): SandboxService {
  const files = createMediaFiles(IMAGE_TO_VIDEO_API_PATH);
  const state: ImageToVideoState = {
    context,
    files,
    jobs: createVideoJobs({ prefix: 'iv', clock: context.clock, files }),
  };
  return {
    name: 'image-to-video',
    register(router: Router) {
      router.route('POST', `${IMAGE_TO_VIDEO_API_PATH}/videos/generations`, (request) =>
        create(state, request),
      );
      router.route('GET', `${IMAGE_TO_VIDEO_API_PATH}/videos/:id`, (request) => get(state, request));
      files.register(router);
    },
    settle() {
      // State is computed from the clock on every look.
    },
    async reset() {
      state.jobs.clear();
      files.clear();
    },
    async close() {
      state.jobs.clear();
      files.clear();
    },
  };
}
