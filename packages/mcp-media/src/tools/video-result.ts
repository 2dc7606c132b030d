/**
 * Waiting for a video job within the long-job contract and turning the outcome into a tool result: a
 * handle while it runs, the saved MP4 (resource link, path, service URL) when done, an error result when
 * it failed or was canceled. Shared by generate_video, image_to_video and get_video_job.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  CATALOG_VIDEO_SERVICE,
  IMAGE_TO_VIDEO_SERVICE,
  isVideoJobDone,
  jobErrorText,
  type VideoJob,
  videoProgressPercent,
} from '@polymodal/core';
import { createJobHandle, jobStatusShape, type WaitExtra, waitForJob } from '@polymodal/mcp-common';
import { z } from 'zod';
import { type MediaToolDeps, saveMedia } from './media-tool-deps.js';

export type VideoService = typeof CATALOG_VIDEO_SERVICE | typeof IMAGE_TO_VIDEO_SERVICE;

export const videoOutcomeShape = {
  ...jobStatusShape,
  service: z.enum([CATALOG_VIDEO_SERVICE, IMAGE_TO_VIDEO_SERVICE]),
  model: z.string().optional(),
  resumed: z
    .boolean()
    .optional()
    .describe('True when an identical earlier request was continued (nothing paid again).'),
  videoUrl: z.string().optional().describe('Where the service stores the MP4.'),
  savedPath: z.string().optional().describe('Local copy in the output directory.'),
  sizeBytes: z.number().optional(),
};

function clientFor(deps: MediaToolDeps, service: VideoService) {
  return service === CATALOG_VIDEO_SERVICE
    ? deps.context.polymodal.catalogVideo
    : deps.context.polymodal.imageToVideo;
}

export async function waitForVideo(
  deps: MediaToolDeps,
  options: {
    service: VideoService;
    jobId: string;
    waitSeconds: number;
    extra: WaitExtra;
    resumed?: boolean;
    fileName?: string;
  },
): Promise<CallToolResult> {
  const { service, jobId } = options;
  const client = clientFor(deps, service);
  const { done, job } = await waitForJob<VideoJob>({
    extra: options.extra,
    waitSeconds: options.waitSeconds,
    intervalMs: deps.pollIntervalMs,
    poll: (signal) => client.get(jobId, { signal }),
    isDone: isVideoJobDone,
    describe: (current) => ({ status: current.status, progress: videoProgressPercent(current) }),
  });
  await deps.context.ledger.updateById(service, jobId, { lastStatus: job.status }).catch(() => undefined);
  const common = {
    service,
    ...(job.model ? { model: job.model } : {}),
    ...(options.resumed ? { resumed: true } : {}),
  };
  if (!done) {
    const handle = createJobHandle({
      jobId,
      status: job.status,
      progress: videoProgressPercent(job),
      waitTool: 'get_video_job',
    });
    return {
      content: [
        {
          type: 'text',
          text: `Video ${jobId} is ${job.status}${options.resumed ? ' (continued from an identical earlier request)' : ''}. ${handle.next}.`,
        },
      ],
      structuredContent: { ...handle, ...common },
    };
  }
  if (job.status !== 'done' || !job.video?.url) {
    const reason = jobErrorText(job.error) ?? 'no reason given';
    return {
      isError: true,
      content: [
        {
          type: 'text',
          text: `Video ${jobId} ended ${job.status}: ${reason}. Change the prompt or inputs and generate again (with newVariation=true for an identical request).`,
        },
      ],
    };
  }
  const saved = await saveMedia(deps, {
    url: job.video.url,
    kind: 'video',
    fileName: options.fileName ?? `video-${jobId}.mp4`,
    description: `Generated video ${jobId}`,
    ...(options.extra.signal ? { signal: options.extra.signal } : {}),
  });
  return {
    content: [
      {
        type: 'text',
        text: `Video ${jobId} is ready: saved to ${saved.savedPath} (${(saved.sizeBytes / 1024).toFixed(0)} KB).`,
      },
      saved.link,
    ],
    structuredContent: {
      jobId,
      status: job.status,
      progress: 100,
      done: true,
      ...common,
      videoUrl: job.video.url,
      savedPath: saved.savedPath,
      sizeBytes: saved.sizeBytes,
    },
  };
}
