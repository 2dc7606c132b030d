/**
 * The image-to-video service (`/api/imgvid/v1`): one image (data URL, same-site `/uploads/...` path or
 * public http(s) URL; JPG, PNG or WEBP by signature, at most 25 MiB; private hosts and redirects refused)
 * plus a prompt become a video job. Model aliases map to the distilled or the full variant; the full
 * variant takes longer. Done jobs answer an absolute `video.url` of a playable MP4.
 */

import { IMAGE_TO_VIDEO_API_PATH } from '@polymodal/core/constants';
import { sniffImageType } from '@polymodal/core/media';
import { HttpError } from '../../framework/http-error.js';
import type { RequestContext } from '../../framework/request-context.js';
import type { Router } from '../../framework/router.js';
import { json, type SandboxResponse } from '../../framework/sandbox-response.js';
import type { SandboxService, ServiceContext } from '../../framework/sandbox-service.js';
import { scaled } from '../../media/job-timeline.js';
import { absoluteUrl, createMediaFiles } from '../../media/media-files.js';
import {
  authenticateMedia,
  CANCEL_MARKER,
  FAIL_MARKER,
  hasMarker,
  parseVideoSeed,
  readObject,
  recordJob,
  rejectUnknownFields,
} from '../../media/media-request.js';
import { resolveMediaUrl } from '../../media/resolve-media-url.js';
import { createVideoJobs } from '../../media/video-jobs.js';

export { IMAGE_TO_VIDEO_API_PATH };
export const IMAGE_TO_VIDEO_COUNTER = 'imageToVideoJobs';
export const IMAGE_TO_VIDEO_DEFAULT_MODEL = 'imgvid-standard';
export const IMAGE_TO_VIDEO_MODELS: Record<string, 'distilled' | 'full'> = {
  'imgvid-standard': 'distilled',
  'imgvid-standard-fast': 'distilled',
  'imgvid-standard-distilled': 'distilled',
  'imgvid-standard-quality': 'full',
  'imgvid-standard-full': 'full',
  // The spec lists these aliases without naming their variant: the default (distilled) is assumed.
  imgvid: 'distilled',
  'imgvid-2.3': 'distilled',
};
export const ASPECT_RATIOS = ['16:9', '9:16', '1:1'] as const;
export const RESOLUTIONS = ['480p', '720p'] as const;
const FIELDS = ['model', 'prompt', 'image', 'duration', 'aspect_ratio', 'aspectRatio', 'resolution', 'seed'];
/** JSON bodies may carry a 25 MiB image as base64 (4/3 larger) plus the other fields. */
const MAX_JSON_BYTES = 36 * 1024 * 1024;

export function createImageToVideoService(context: ServiceContext): SandboxService {
  const { clock, counters, config } = context;
  const files = createMediaFiles(IMAGE_TO_VIDEO_API_PATH);
  const jobs = createVideoJobs({ prefix: 'iv', clock, files });
  const maxImageBytes = config.media.video.maxImageBytes;

  async function create(request: RequestContext): Promise<SandboxResponse> {
    const { user } = authenticateMedia(request);
    const body = await readObject(request, MAX_JSON_BYTES);
    rejectUnknownFields(body, FIELDS);
    const model = body.model ?? IMAGE_TO_VIDEO_DEFAULT_MODEL;
    if (typeof model !== 'string' || !(model in IMAGE_TO_VIDEO_MODELS)) {
      throw new HttpError(400, `model must be one of ${Object.keys(IMAGE_TO_VIDEO_MODELS).join(', ')}`);
    }
    const variant = IMAGE_TO_VIDEO_MODELS[model]!;
    if (typeof body.prompt !== 'string' || body.prompt.trim() === '') {
      throw new HttpError(400, 'prompt is required: a text instruction for animating the image');
    }
    const image = body.image as { url?: unknown } | undefined;
    if (typeof image !== 'object' || image === null || typeof image.url !== 'string') {
      throw new HttpError(
        400,
        'image.url is required: a data URL, a /uploads/... path or a public http(s) URL',
      );
    }
    const duration = body.duration ?? 5;
    if (typeof duration !== 'number' || !Number.isInteger(duration) || duration < 2 || duration > 10) {
      throw new HttpError(400, 'duration must be an integer from 2 to 10 seconds');
    }
    if (
      body.aspect_ratio !== undefined &&
      body.aspectRatio !== undefined &&
      body.aspect_ratio !== body.aspectRatio
    ) {
      throw new HttpError(400, 'aspect_ratio and its alias aspectRatio differ; send one of them');
    }
    const aspectRatio = body.aspect_ratio ?? body.aspectRatio ?? '16:9';
    if (typeof aspectRatio !== 'string' || !(ASPECT_RATIOS as readonly string[]).includes(aspectRatio)) {
      throw new HttpError(400, `aspect_ratio must be one of ${ASPECT_RATIOS.join(', ')}`);
    }
    const resolution = body.resolution ?? '720p';
    if (typeof resolution !== 'string' || !(RESOLUTIONS as readonly string[]).includes(resolution)) {
      throw new HttpError(400, `resolution must be one of ${RESOLUTIONS.join(', ')}`);
    }
    const seed = parseVideoSeed(body.seed);
    const resolved = resolveMediaUrl({
      url: image.url,
      field: 'image.url',
      publicMedia: config.media.publicMedia,
      maxBytes: maxImageBytes,
    });
    const type = resolved.bytes ? sniffImageType(resolved.bytes) : undefined;
    if (!type) throw new HttpError(400, 'image.url is not a JPG, PNG or WEBP image (checked by its content)');

    const prompt = body.prompt;
    const canceled = hasMarker(prompt, CANCEL_MARKER);
    const failed = hasMarker(prompt, FAIL_MARKER);
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
      aspect_ratio: aspectRatio,
      resolution,
      seed: seed ?? null,
    });
    recordJob(counters, user, IMAGE_TO_VIDEO_COUNTER);
    return json(202, { request_id: job.id, status: 'queued', model });
  }

  function get(request: RequestContext): SandboxResponse {
    const { user } = authenticateMedia(request);
    const job = jobs.find(request.params.id!, user.id);
    return json(
      200,
      jobs.view(job, (path) => absoluteUrl(request, path)),
    );
  }

  return {
    name: 'image-to-video',
    register(router: Router) {
      router.route('POST', `${IMAGE_TO_VIDEO_API_PATH}/videos/generations`, create);
      router.route('GET', `${IMAGE_TO_VIDEO_API_PATH}/videos/:id`, get);
      files.register(router);
    },
    settle() {
      // State is computed from the clock on every look.
    },
    async reset() {
      jobs.clear();
      files.clear();
    },
    async close() {
      jobs.clear();
      files.clear();
    },
  };
}
