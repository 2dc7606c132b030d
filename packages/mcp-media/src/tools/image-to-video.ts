/**
 * image_to_video: animates one image. A local image is checked (JPG/PNG/WEBP by content, at most 25 MB)
 * and sent as a data URL; a URL must name a public host.
 */
import {
  IMAGE_TO_VIDEO_ASPECT_RATIOS,
  IMAGE_TO_VIDEO_MODELS,
  IMAGE_TO_VIDEO_RESOLUTIONS,
  IMAGE_TO_VIDEO_SERVICE,
} from '@polymodal/core/constants';
import type { ToolDeps } from '@polymodal/mcp-common';
import { createWaitSecondsSchema, defineTool, PLATFORM_WORK_ANNOTATIONS } from '@polymodal/mcp-common';
import { z } from 'zod';
import { MEDIA_PLAYER_VIEW } from '../views/media-player-view.js';
import { retryFlags } from './generate-video.js';
import { mediaReference } from './media-tool-deps.js';
import { startAndWaitForVideo, videoOutcomeShape } from './video-result.js';

const DESCRIPTION = `Animates an image (JPG, PNG, WEBP; local path or URL) into a 2-10 s video. Costs credits; the same request continues free. If done=false: get_video_job.`;

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const imageToVideoInput = {
  prompt: z.string().min(1),
  image: z.string().min(1),
  model: z.enum(IMAGE_TO_VIDEO_MODELS).optional(),
  duration: z.number().int().min(2).max(10).optional().describe('Default 5.'),
  aspectRatio: z.enum(IMAGE_TO_VIDEO_ASPECT_RATIOS).optional(),
  resolution: z.enum(IMAGE_TO_VIDEO_RESOLUTIONS).optional(),
  seed: z.number().int().optional(),
  fileName: z.string().min(1).optional(),
  ...retryFlags,
  waitSeconds: createWaitSecondsSchema(40),
};

export const imageToVideoTool = defineTool({
  name: 'image_to_video',
  title: 'Animate an image into a video',
  description: DESCRIPTION,
  inputSchema: imageToVideoInput,
  outputSchema: videoOutcomeShape,
  asTask: true,
  annotations: PLATFORM_WORK_ANNOTATIONS,
  view: MEDIA_PLAYER_VIEW,
  handler: (deps: ToolDeps) => async (args, extra) =>
    startAndWaitForVideo(
      deps,
      { service: IMAGE_TO_VIDEO_SERVICE, args, extra },
      async () => ({
        prompt: args.prompt,
        image: { url: await mediaReference(deps, args.image, 'image', 'image') },
        ...(args.model ? { model: args.model } : {}),
        ...(args.duration === undefined ? {} : { duration: args.duration }),
        ...(args.aspectRatio ? { aspect_ratio: args.aspectRatio } : {}),
        ...(args.resolution ? { resolution: args.resolution } : {}),
        ...(args.seed === undefined ? {} : { seed: args.seed }),
      }),
      (request, options) => deps.platform.client.imageToVideo.submit(request, options),
    ),
});
