/**
 * generate_video: a video from a catalog model. The request is checked against the live catalog before
 * anything is sent; local image/video/audio files are sent inline (data URLs), URLs as they are.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CATALOG_VIDEO_SERVICE, type CatalogVideoRequest } from '@polymodal/core';
import { createWaitSecondsSchema, PLATFORM_WORK_ANNOTATIONS } from '@polymodal/mcp-common';
import { z } from 'zod';
import { type MediaToolDeps, mediaReference, mediaToolError, outputName } from './media-tool-deps.js';
import { videoOutcomeShape, waitForVideo } from './video-result.js';

const DESCRIPTION = `Generates a video with a catalog model (call list_video_models first for ids, required fields and options). Costs credits. Media inputs fill the model's URI parameters in catalog order: each item is a local file path (inside an allowed directory; sent inline, images up to 25 MB) or a public http(s) URL. The request is validated against the catalog first (unknown model, missing required field, unknown option or wrong type → error, nothing charged). An identical earlier request of this installation is continued instead of paid again (set newVariation=true for another take). Waits up to waitSeconds with progress; if the video is not ready, returns done=false with a jobId — call get_video_job with it. When done, the MP4 is saved into the output directory and returned as a resource link.`;

export const retryFlags = {
  newVariation: z
    .boolean()
    .default(false)
    .describe('Start a new job even if this installation made the same request before (costs again).'),
  allowResubmit: z
    .boolean()
    .default(false)
    .describe(
      'Only after an error saying an identical request was interrupted: send it again although a job may already exist (may cost twice).',
    ),
};

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const generateVideoInput = {
  model: z.string().min(1).describe('Catalog model id (hub:... or the bare id).'),
  prompt: z.string().min(1).optional().describe('Text prompt (required by most models).'),
  images: z.array(z.string().min(1)).max(4).optional().describe('Image inputs: local paths or URLs.'),
  videos: z.array(z.string().min(1)).max(2).optional().describe('Video inputs: local paths or URLs.'),
  audios: z.array(z.string().min(1)).max(2).optional().describe('Audio inputs: local paths or URLs.'),
  duration: z
    .union([z.number().int().positive(), z.string().regex(/^\s*\d+\s*$/, 'a whole number of seconds')])
    .optional()
    .describe('Seconds; the model snaps it to what it supports.'),
  resolution: z.string().optional().describe('e.g. 720p; allowed values per model in list_video_models.'),
  aspectRatio: z.string().optional().describe('e.g. 16:9; allowed values per model.'),
  options: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
    .optional()
    .describe('Model parameters by their exact catalog names; they override the fields above.'),
  seed: z.number().int().optional().describe('-1 or omitted for random.'),
  fileName: z.string().min(1).optional().describe('Name of the saved MP4 (default video-<jobId>.mp4).'),
  ...retryFlags,
  waitSeconds: createWaitSecondsSchema(40),
};

export function registerGenerateVideo(server: McpServer, deps: MediaToolDeps): void {
  server.registerTool(
    'generate_video',
    {
      title: 'Generate a video (catalog model)',
      description: DESCRIPTION,
      inputSchema: generateVideoInput,
      outputSchema: videoOutcomeShape,
      annotations: { title: 'Generate a video (catalog model)', ...PLATFORM_WORK_ANNOTATIONS },
    },
    async (args, extra) => {
      try {
        await deps.roots.ready();
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
        const request: CatalogVideoRequest = {
          model: args.model,
          ...(args.prompt ? { prompt: args.prompt } : {}),
          ...(Object.keys(inputs).length > 0 ? { inputs } : {}),
          ...(args.duration === undefined ? {} : { duration: args.duration }),
          ...(args.resolution ? { resolution: args.resolution } : {}),
          ...(args.aspectRatio ? { aspect_ratio: args.aspectRatio } : {}),
          ...(args.options ? { options: args.options } : {}),
          ...(args.seed === undefined ? {} : { seed: args.seed }),
        };
        const submitted = await deps.context.polymodal.catalogVideo.submit(request, {
          signal: extra.signal,
          deadline: Date.now() + deps.toolDeadlineSeconds * 1000,
          saveAs: args.fileName ? outputName(args.fileName, '', '.mp4') : undefined,
          forceNew: args.newVariation,
          allowResubmit: args.allowResubmit,
        });
        return await waitForVideo(deps, {
          service: CATALOG_VIDEO_SERVICE,
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
