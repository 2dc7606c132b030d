/**
 * get_video_job: the state of a video job (catalog or image-to-video), waiting up to waitSeconds; a
 * finished video is saved like generate_video does. The service is found in the job ledger when not given.
 */
import { CATALOG_VIDEO_SERVICE, IMAGE_TO_VIDEO_SERVICE } from '@polymodal/core/constants';
import { ValidationError } from '@polymodal/core/errors';
import type { ToolDeps } from '@polymodal/mcp-common';
import { createWaitSecondsSchema, defineTool, toolErrorFor } from '@polymodal/mcp-common';
import { z } from 'zod';
import { MEDIA_PLAYER_VIEW } from '../views/media-player-view.js';
import { type VideoService, videoOutcomeShape, waitForVideo } from './video-result.js';

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const getVideoJobInput = {
  jobId: z.string().min(1),
  service: z
    .enum([CATALOG_VIDEO_SERVICE, IMAGE_TO_VIDEO_SERVICE])
    .optional()
    .describe('Default: from the ledger.'),
  waitSeconds: createWaitSecondsSchema(40),
};

export const getVideoJobTool = defineTool({
  name: 'get_video_job',
  title: 'Get a video job',
  description:
    'Waits (waitSeconds, default 40) on a generate_video or image_to_video job; when done, saves the MP4 and links it. Free.',
  inputSchema: getVideoJobInput,
  outputSchema: videoOutcomeShape,
  asTask: true,
  annotations: {
    // Not read-only, like get_speech and get_flashcards: a finished video is saved into the output directory.
    readOnlyHint: false,
    // It only rewrites this job's own file with the same video.
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: true,
  },
  view: MEDIA_PLAYER_VIEW,
  handler: (deps: ToolDeps) => async (args, extra) => {
    try {
      let service: VideoService | undefined = args.service;
      let saveAs: unknown;
      for (const candidate of [CATALOG_VIDEO_SERVICE, IMAGE_TO_VIDEO_SERVICE] as const) {
        if (service && service !== candidate) continue;
        const entry = await deps.platform.ledger.findById(candidate, args.jobId);
        if (!entry) continue;
        service = candidate;
        // The name the starting call asked for, kept with the job: a later wait saves under it too.
        saveAs = entry.request?.saveAs;
      }
      if (!service) {
        throw new ValidationError(
          `Job ${args.jobId} is not in this installation's ledger; say which service it belongs to (service: ${CATALOG_VIDEO_SERVICE} or ${IMAGE_TO_VIDEO_SERVICE}).`,
          [{ path: 'service', message: 'unknown; give it' }],
        );
      }
      return await waitForVideo(deps, {
        service,
        jobId: args.jobId,
        waitSeconds: args.waitSeconds,
        extra,
        ...(typeof saveAs === 'string' && saveAs !== '' ? { fileName: saveAs } : {}),
      });
    } catch (error) {
      return toolErrorFor(error, deps, { jobId: args.jobId });
    }
  },
});
