/**
 * image_to_video: animates one image. A local image is checked (JPG/PNG/WEBP by content, at most 25 MB)
 * and sent as a data URL; a URL must name a public host.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  IMAGE_TO_VIDEO_ASPECT_RATIOS,
  IMAGE_TO_VIDEO_MODELS,
  IMAGE_TO_VIDEO_RESOLUTIONS,
  IMAGE_TO_VIDEO_SERVICE,
} from '@polymodal/core';
import { createWaitSecondsSchema, PLATFORM_WORK_ANNOTATIONS } from '@polymodal/mcp-common';
import { z } from 'zod';
import { retryFlags } from './generate-video.js';
import { type MediaToolDeps, mediaReference, mediaToolError, outputName } from './media-tool-deps.js';
import { videoOutcomeShape, waitForVideo } from './video-result.js';

const DESCRIPTION = `Animates one image into a short video (2–10 s) following a prompt. Costs credits. image is a local path (inside an allowed directory; JPG, PNG or WEBP up to 25 MB, checked by content) or a public http(s) URL (private-network hosts are refused). Models: imgvid-standard (default, fast distilled variant) or imgvid-standard-quality (full variant, slower). An identical earlier request of this installation is continued instead of paid again (newVariation=true for another take). Waits up to waitSeconds with progress; if not ready, returns done=false with a jobId — call get_video_job. When done, the MP4 is saved into the output directory and returned as a resource link.`;

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const imageToVideoInput = {
  prompt: z.string().min(1).describe('How the image should move.'),
  image: z.string().min(1).describe('Local image path or public image URL.'),
  model: z.enum(IMAGE_TO_VIDEO_MODELS).optional().describe('Default imgvid-standard.'),
  duration: z.number().int().min(2).max(10).optional().describe('Seconds, 2–10 (default 5).'),
  aspectRatio: z.enum(IMAGE_TO_VIDEO_ASPECT_RATIOS).optional().describe('Default 16:9.'),
  resolution: z.enum(IMAGE_TO_VIDEO_RESOLUTIONS).optional().describe('Default 720p.'),
  seed: z.number().int().optional().describe('-1 or omitted for random.'),
  fileName: z.string().min(1).optional().describe('Name of the saved MP4 (default video-<jobId>.mp4).'),
  ...retryFlags,
  waitSeconds: createWaitSecondsSchema(40),
};

export function registerImageToVideo(server: McpServer, deps: MediaToolDeps): void {
  server.registerTool(
    'image_to_video',
    {
      title: 'Animate an image into a video',
      description: DESCRIPTION,
      inputSchema: imageToVideoInput,
      outputSchema: videoOutcomeShape,
      annotations: { title: 'Animate an image into a video', ...PLATFORM_WORK_ANNOTATIONS },
    },
    async (args, extra) => {
      try {
        await deps.roots.ready();
        const url = await mediaReference(deps, args.image, 'image', 'image');
        const submitted = await deps.context.polymodal.imageToVideo.submit(
          {
            prompt: args.prompt,
            image: { url },
            ...(args.model ? { model: args.model } : {}),
            ...(args.duration === undefined ? {} : { duration: args.duration }),
            ...(args.aspectRatio ? { aspect_ratio: args.aspectRatio } : {}),
            ...(args.resolution ? { resolution: args.resolution } : {}),
            ...(args.seed === undefined ? {} : { seed: args.seed }),
          },
          {
            signal: extra.signal,
            deadline: Date.now() + deps.toolDeadlineSeconds * 1000,
            saveAs: args.fileName ? outputName(args.fileName, '', '.mp4') : undefined,
            forceNew: args.newVariation,
            allowResubmit: args.allowResubmit,
          },
        );
        return await waitForVideo(deps, {
          service: IMAGE_TO_VIDEO_SERVICE,
          jobId: submitted.requestId,
          waitSeconds: args.waitSeconds,
          extra,
          resumed: submitted.resumed,
          known: { status: submitted.status },
          fileName: outputName(args.fileName, `video-${submitted.requestId}.mp4`, '.mp4'),
        });
      } catch (error) {
        return mediaToolError(error, deps);
      }
    },
  );
}
