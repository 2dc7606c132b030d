/**
 * The image-to-video request (`POST /videos/generations`), checked field by field in the platform's
 * order: model alias, prompt, image reference, duration, aspect ratio (or its alias), resolution, seed;
 * then the image itself is resolved under the media safety rules and must be a JPG, PNG or WEBP by its
 * content.
 */
import { sniffImageType } from '@polymodal/core/media';
import type { ParsedSandboxConfig } from '../../config/sandbox-config.js';
import { HttpError } from '../../framework/http-error.js';
import { parseVideoSeed, rejectUnknownFields } from '../../media/media-request.js';
import { resolveMediaUrl } from '../../media/resolve-media-url.js';

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

export interface VideoRequest {
  model: string;
  variant: 'distilled' | 'full';
  prompt: string;
  duration: number;
  aspectRatio: string;
  resolution: string;
  seed: number | undefined;
}

function parseModel(body: Record<string, unknown>): Pick<VideoRequest, 'model' | 'variant'> {
  const model = body.model ?? IMAGE_TO_VIDEO_DEFAULT_MODEL;
  if (typeof model !== 'string' || !(model in IMAGE_TO_VIDEO_MODELS)) {
    throw new HttpError(400, `model must be one of ${Object.keys(IMAGE_TO_VIDEO_MODELS).join(', ')}`);
  }
  return { model, variant: IMAGE_TO_VIDEO_MODELS[model]! };
}

/** The shape of the output: duration, aspect ratio (one of two spellings) and resolution, defaulted. */
function parseShape(
  body: Record<string, unknown>,
): Pick<VideoRequest, 'duration' | 'aspectRatio' | 'resolution'> {
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
  return { duration, aspectRatio, resolution };
}

/** Resolves the image under the media safety rules; anything but a JPG, PNG or WEBP is a 400. */
function checkImage(url: string, media: ParsedSandboxConfig['media']): void {
  const resolved = resolveMediaUrl({
    url,
    field: 'image.url',
    publicMedia: media.publicMedia,
    maxBytes: media.video.maxImageBytes,
  });
  const type = resolved.bytes ? sniffImageType(resolved.bytes) : undefined;
  if (!type) throw new HttpError(400, 'image.url is not a JPG, PNG or WEBP image (checked by its content)');
}

export function parseVideoRequest(
  body: Record<string, unknown>,
  media: ParsedSandboxConfig['media'],
): VideoRequest {
  rejectUnknownFields(body, FIELDS);
  const { model, variant } = parseModel(body);
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
  const shape = parseShape(body);
  const seed = parseVideoSeed(body.seed);
  checkImage(image.url, media);
  return { model, variant, prompt: body.prompt, ...shape, seed };
}
