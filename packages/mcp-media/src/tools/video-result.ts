/**
 * Waiting for a video job (mcp-common's `respondWithJob`) and presenting it: a handle while it runs, the
 * saved MP4 (resource link, path, service URL) when done, and — by the rule every server follows — a
 * failed or canceled job as `done: true, outcome: "failed" | "cancelled"` with the platform's reason.
 * Shared by generate_video, image_to_video and get_video_job.
 */

import type { VideoJob } from '@polymodal/core';
import { CATALOG_VIDEO_SERVICE, type IMAGE_TO_VIDEO_SERVICE, jobErrorText } from '@polymodal/core/constants';
import { videoJobView } from '@polymodal/core/views';
import type { CallToolResult, ToolDeps } from '@polymodal/mcp-common';
import {
  createToolDeadline,
  jobOutputSchema,
  type PresentedJob,
  respondWithJob,
  type ToolDeadline,
  toolErrorFor,
  type WaitExtra,
} from '@polymodal/mcp-common';
import { outputName, saveMedia } from './media-tool-deps.js';

export type VideoService = typeof CATALOG_VIDEO_SERVICE | typeof IMAGE_TO_VIDEO_SERVICE;

/**
 * The shared long-job output schema (issue 14): the tool's own fields (saved file, sizes, parts, …) are
 * further properties it allows, explained in the README's Tools section rather than in every tools/list.
 */
export const videoOutcomeShape = jobOutputSchema;

function clientFor(deps: ToolDeps, service: VideoService) {
  return service === CATALOG_VIDEO_SERVICE
    ? deps.platform.client.catalogVideo
    : deps.platform.client.imageToVideo;
}

/** What both video tools ask of a start: where to save the video, and whether to start again. */
export interface VideoStartArgs {
  fileName?: string | undefined;
  newVariation: boolean;
  allowResubmit: boolean;
  waitSeconds: number;
}

/** The options a video client's `submit` takes from one tool call. */
export interface VideoStartOptions {
  signal: AbortSignal;
  deadline: number;
  saveAs: string | undefined;
  forceNew: boolean;
  allowResubmit: boolean;
}

/**
 * A video tool's call: its inputs prepared (`prepare`, which may read files), the job started once
 * (`submit`) and waited for, all within one deadline, and any failure answered as a tool error.
 */
export async function startAndWaitForVideo<R>(
  deps: ToolDeps,
  call: { service: VideoService; args: VideoStartArgs; extra: WaitExtra },
  prepare: () => Promise<R>,
  submit: (
    request: R,
    options: VideoStartOptions,
  ) => Promise<{ requestId: string; status: string; resumed: boolean }>,
): Promise<CallToolResult> {
  const { args, extra } = call;
  // One deadline for the whole call: the start and the wait after it.
  const deadline = createToolDeadline(extra.signal, deps.toolDeadlineSeconds);
  try {
    await deps.roots.ready();
    const submitted = await submit(await prepare(), {
      signal: extra.signal,
      deadline: deadline.at,
      saveAs: args.fileName ? outputName(args.fileName, '', '.mp4') : undefined,
      forceNew: args.newVariation,
      allowResubmit: args.allowResubmit,
    });
    return await waitForVideo(deps, {
      deadline,
      service: call.service,
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
}

export async function waitForVideo(
  deps: ToolDeps,
  options: {
    service: VideoService;
    jobId: string;
    waitSeconds: number;
    extra: WaitExtra;
    resumed?: boolean;
    fileName?: string;
    /** What the start said, for a handle when nothing can be read in time. */
    known?: { status: string };
    /** The call's deadline, when the call did more before the wait (a start): it bounds the whole call. */
    deadline?: ToolDeadline;
  },
): Promise<CallToolResult> {
  const { service, jobId, extra } = options;
  const client = clientFor(deps, service);
  const deadline = options.deadline ?? createToolDeadline(extra.signal, deps.toolDeadlineSeconds);
  try {
    return await respondWithJob<VideoJob>({
      extra,
      jobId,
      waitSeconds: options.waitSeconds,
      deadline: deadline.at,
      poll: (request) => client.poll(jobId, request),
      view: videoJobView,
      waitTool: 'get_video_job',
      ...(options.known ? { known: options.known } : {}),
      structured: { service, ...(options.resumed ? { resumed: true } : {}) },
      present: (job, done) => presentVideo(deps, job, done, { ...options, signal: extra.signal }),
    });
  } finally {
    // A deadline the caller gave is the caller's to dispose of.
    if (!options.deadline) deadline.dispose();
  }
}

async function presentVideo(
  deps: ToolDeps,
  job: VideoJob,
  done: boolean,
  options: { jobId: string; resumed?: boolean; fileName?: string; signal: AbortSignal },
): Promise<PresentedJob> {
  const { jobId } = options;
  const model = job.model ? { model: job.model } : {};
  if (!done) {
    return {
      text: `Video ${jobId} is ${job.status}${options.resumed ? ' (continued from an identical earlier request)' : ''}.`,
      structured: model,
    };
  }
  if (job.status !== 'done' || !job.video?.url) {
    const reason =
      jobErrorText(job.error) ?? (job.status === 'done' ? 'no video URL in the result' : 'no reason given');
    return {
      text: `Video ${jobId} ended ${job.status}: ${reason}. Nothing was saved.`,
      structured: model,
      next: 'change the prompt or inputs and generate again (newVariation=true repeats an identical request as a new paid job)',
    };
  }
  const saved = await saveMedia(deps, {
    url: job.video.url,
    kind: 'video',
    fileName: options.fileName ?? `video-${jobId}.mp4`,
    description: `Generated video ${jobId}`,
    signal: options.signal,
  });
  return {
    text: `Video ${jobId} is ready: saved to ${saved.savedPath} (${(saved.sizeBytes / 1024).toFixed(0)} KB).`,
    links: [saved.link],
    structured: { ...model, videoUrl: job.video.url, savedPath: saved.savedPath, sizeBytes: saved.sizeBytes },
    next: `open the saved file ${saved.savedPath}`,
  };
}
