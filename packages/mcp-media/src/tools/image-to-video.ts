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
import {
  createToolDeadline,
  createWaitSecondsSchema,
  defineTool,
  PLATFORM_WORK_ANNOTATIONS,
  toolErrorFor,
} from '@polymodal/mcp-common';
import { z } from 'zod';
import { retryFlags } from './generate-video.js';
import { type MediaToolDeps, mediaReference, outputName } from './media-tool-deps.js';
import { videoOutcomeShape, waitForVideo } from './video-result.js';

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
  annotations: PLATFORM_WORK_ANNOTATIONS,
  handler: (deps: MediaToolDeps) => async (args, extra) => {
    // One deadline for the whole call: the start and the wait after it.
    const deadline = createToolDeadline(extra.signal, deps.toolDeadlineSeconds);
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
          deadline: deadline.at,
          saveAs: args.fileName ? outputName(args.fileName, '', '.mp4') : undefined,
          forceNew: args.newVariation,
          allowResubmit: args.allowResubmit,
        },
      );
      return await waitForVideo(deps, {
        deadline,
        service: IMAGE_TO_VIDEO_SERVICE,
        jobId: submitted.requestId,
        waitSeconds: args.waitSeconds,
        extra,
        resumed: submitted.resumed,
        known: { status: submitted.status },
        fileName: outputName(args.fileName, `video-${submitted.requestId}.mp4`, '.mp4'),
      });
    } catch (error) {
      return toolErrorFor(error, deps);
    } finally {
      deadline.dispose();
    }
  },
});
