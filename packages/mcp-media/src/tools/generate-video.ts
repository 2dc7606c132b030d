/**
 * generate_video: a video from a catalog model. The request is checked against the live catalog before
 * anything is sent; local image/video/audio files are sent inline (data URLs), URLs as they are.
 */
import type { CatalogVideoRequest } from '@polymodal/core';
import { CATALOG_VIDEO_SERVICE } from '@polymodal/core/constants';
import type { ToolDeps } from '@polymodal/mcp-common';
import { createWaitSecondsSchema, defineTool, PLATFORM_WORK_ANNOTATIONS } from '@polymodal/mcp-common';
import { z } from 'zod';
import { MEDIA_PLAYER_VIEW } from '../views/media-player-view.js';
import { mediaReference } from './media-tool-deps.js';
import { startAndWaitForVideo, videoOutcomeShape } from './video-result.js';

const DESCRIPTION = `Generates a video with a catalog model (see list_video_models). Costs credits; the same request again continues free. Media: local paths or URLs. If done=false: get_video_job.`;

export const retryFlags = {
  newVariation: z.boolean().default(false).describe('Costs again.'),
  allowResubmit: z.boolean().default(false).describe('Only if an error asks.'),
};

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const generateVideoInput = {
  model: z.string().min(1),
  prompt: z.string().min(1).optional(),
  images: z.array(z.string().min(1)).max(4).optional(),
  videos: z.array(z.string().min(1)).max(2).optional(),
  audios: z.array(z.string().min(1)).max(2).optional(),
  duration: z
    .union([z.number().int().positive(), z.string().regex(/^\s*\d+\s*$/, 'a whole number of seconds')])
    .optional(),
  resolution: z.string().optional(),
  aspectRatio: z.string().optional(),
  options: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  seed: z.number().int().optional(),
  fileName: z.string().min(1).optional(),
  ...retryFlags,
  waitSeconds: createWaitSecondsSchema(40),
};

export const generateVideoTool = defineTool({
  name: 'generate_video',
  title: 'Generate a video (catalog model)',
  description: DESCRIPTION,
  inputSchema: generateVideoInput,
  outputSchema: videoOutcomeShape,
  asTask: true,
  annotations: PLATFORM_WORK_ANNOTATIONS,
  view: MEDIA_PLAYER_VIEW,
  handler: (deps: ToolDeps) => async (args, extra) =>
    startAndWaitForVideo(
      deps,
      { service: CATALOG_VIDEO_SERVICE, args, extra },
      async (): Promise<CatalogVideoRequest> => {
        const references = async (
          items: string[] | undefined,
          kind: 'image' | 'video' | 'audio',
          field: string,
        ) =>
          items === undefined
            ? undefined
            : Promise.all(
                items.map(async (item, index) => ({
                  url: await mediaReference(deps, item, kind, `${field}[${index}]`),
                })),
              );
        const [images, videos, audios] = await Promise.all([
          references(args.images, 'image', 'images'),
          references(args.videos, 'video', 'videos'),
          references(args.audios, 'audio', 'audios'),
        ]);
        const inputs = {
          ...(images ? { images } : {}),
          ...(videos ? { videos } : {}),
          ...(audios ? { audios } : {}),
        };
        return {
          model: args.model,
          ...(args.prompt ? { prompt: args.prompt } : {}),
          ...(Object.keys(inputs).length > 0 ? { inputs } : {}),
          ...(args.duration === undefined ? {} : { duration: args.duration }),
          ...(args.resolution ? { resolution: args.resolution } : {}),
          ...(args.aspectRatio ? { aspect_ratio: args.aspectRatio } : {}),
          ...(args.options ? { options: args.options } : {}),
          ...(args.seed === undefined ? {} : { seed: args.seed }),
        };
      },
      (request, options) => deps.platform.client.catalogVideo.submit(request, options),
    ),
});
