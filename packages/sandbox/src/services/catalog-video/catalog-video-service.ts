/**
 * The catalog video service (`/api/modelhub/v1`): the model catalog, generation jobs whose request is
 * validated against the chosen model's schema (media inputs fetched under the safety rules and checked by
 * signature), and job status queued → processing → done | failed | canceled with a relative `video.url`
 * of a playable MP4 once done. The provider credential is the platform's own: callers never send one.
 */

import { CATALOG_VIDEO_API_PATH } from '@polymodal/core/constants';
import { isWav, sniffImageType, sniffVideoContainer } from '@polymodal/core/media';
import { HttpError } from '../../framework/http-error.js';
import type { RequestContext } from '../../framework/request-context.js';
import type { Router } from '../../framework/router.js';
import { json, type SandboxResponse } from '../../framework/sandbox-response.js';
import type { SandboxService, ServiceContext } from '../../framework/sandbox-service.js';
import { scaled } from '../../media/job-timeline.js';
import { createMediaFiles } from '../../media/media-files.js';
import {
  authenticateMedia,
  CANCEL_MARKER,
  FAIL_MARKER,
  hasMarker,
  readObject,
  recordJob,
} from '../../media/media-request.js';
import { resolveMediaUrl } from '../../media/resolve-media-url.js';
import { createVideoJobs } from '../../media/video-jobs.js';
import { CATALOG_MODELS, catalogEntry, findCatalogModel } from './catalog-models.js';
import { buildGenerationParameters, type InputKind } from './generation-request.js';

export { CATALOG_VIDEO_API_PATH };
export const CATALOG_VIDEO_COUNTER = 'catalogVideoJobs';
export const CATALOG_PROVIDER = 'modelhub';
/** Audio and video inputs: at most 100 MiB (not published; documented choice). */
const MAX_MEDIA_INPUT_BYTES = 100 * 1024 * 1024;
const MAX_JSON_BYTES = 36 * 1024 * 1024;

function isAudio(bytes: Buffer): boolean {
  if (isWav(bytes)) return true;
  if (bytes.toString('latin1', 0, 3) === 'ID3') return true; // MP3 with tags
  if (bytes.length >= 2 && bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0) return true; // MPEG audio frame
  if (bytes.toString('latin1', 4, 8) === 'ftyp') return true; // M4A
  return bytes.toString('latin1', 0, 4) === 'OggS' || bytes.toString('latin1', 0, 4) === 'fLaC';
}

const KIND_CHECKS: Record<InputKind, { check: (bytes: Buffer) => boolean; label: string }> = {
  image: { check: (bytes) => sniffImageType(bytes) !== undefined, label: 'a JPG, PNG or WEBP image' },
  video: {
    check: (bytes) => sniffVideoContainer(bytes) !== undefined,
    label: 'a video (MP4, MOV, MKV, WEBM, AVI, MPEG)',
  },
  audio: { check: isAudio, label: 'an audio file (WAV, MP3, M4A, OGG, FLAC)' },
};

export function createCatalogVideoService(context: ServiceContext): SandboxService {
  const { clock, counters, config } = context;
  const files = createMediaFiles(CATALOG_VIDEO_API_PATH);
  const jobs = createVideoJobs({ prefix: 'cv', clock, files });

  function listModels(request: RequestContext): SandboxResponse {
    authenticateMedia(request);
    return json(200, {
      object: 'list',
      provider: CATALOG_PROVIDER,
      base_url: `${CATALOG_VIDEO_API_PATH}/videos`,
      data: CATALOG_MODELS.map(catalogEntry),
    });
  }

  async function create(request: RequestContext): Promise<SandboxResponse> {
    const { user } = authenticateMedia(request);
    const body = await readObject(request, MAX_JSON_BYTES);
    if (typeof body.model !== 'string' || body.model.trim() === '') {
      throw new HttpError(400, 'model is required: a catalog model id (GET /models lists them)');
    }
    const model = findCatalogModel(body.model.trim());
    if (!model) {
      throw new HttpError(
        400,
        `unknown model ${body.model}; catalog models: ${CATALOG_MODELS.map((entry) => entry.id).join(', ')}`,
      );
    }
    const parameters = buildGenerationParameters(model, body);
    for (const uri of parameters.uris) {
      const resolved = resolveMediaUrl({
        url: uri.url,
        field: uri.name,
        publicMedia: config.media.publicMedia,
        maxBytes: uri.kind === 'image' ? config.media.video.maxImageBytes : MAX_MEDIA_INPUT_BYTES,
      });
      const { check, label } = KIND_CHECKS[uri.kind];
      if (!resolved.bytes || !check(resolved.bytes))
        throw new HttpError(400, `${uri.name} is not ${label} (checked by its content)`);
    }
    const prompt = typeof parameters.values.prompt === 'string' ? parameters.values.prompt : undefined;
    const seconds = typeof parameters.values.duration === 'number' ? parameters.values.duration : 5;
    const job = jobs.create({
      userId: user.id,
      queuedMs: scaled(2, context.speed),
      processingMs: scaled(3 + model.secondsPerVideoSecond * seconds, context.speed),
      outcome: hasMarker(prompt, CANCEL_MARKER)
        ? 'canceled'
        : hasMarker(prompt, FAIL_MARKER)
          ? 'failed'
          : 'done',
      errorMessage: `generation failed: ${model.id} rejected the request (content policy)`,
      fields: { provider: CATALOG_PROVIDER, model: model.id },
    });
    Object.assign(job.progressFields, { parameters: parameters.values, seed: parameters.seed ?? null });
    recordJob(counters, user, CATALOG_VIDEO_COUNTER);
    return json(202, { request_id: job.id, status: 'queued', model: model.id, provider: CATALOG_PROVIDER });
  }

  function get(request: RequestContext): SandboxResponse {
    const { user } = authenticateMedia(request);
    const job = jobs.find(request.params.requestId!, user.id);
    const view = jobs.view(job, (path) => path);
    // The worker knows the model's metadata once it picked the job up; while queued, status omits it.
    if (view.status === 'queued') delete view.model;
    return json(200, view);
  }

  return {
    name: 'catalog-video',
    register(router: Router) {
      router.route('GET', `${CATALOG_VIDEO_API_PATH}/models`, listModels);
      router.route('POST', `${CATALOG_VIDEO_API_PATH}/videos/generations`, create);
      router.route('GET', `${CATALOG_VIDEO_API_PATH}/videos/:requestId`, get);
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
