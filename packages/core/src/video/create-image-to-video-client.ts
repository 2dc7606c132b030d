/**
 * Client of the image-to-video service (`/api/imgvid/v1`): every default and range of the spec is checked
 * before sending (model alias, duration 2–10, aspect ratio, resolution, image reference), the job is
 * started at most once through the job engine and polled until it stops.
 *
 * `aspectRatio` is accepted as an alias and sent as `aspect_ratio`. A remote image URL must name a public
 * host; a local image is turned into a data URL by the caller (see `readMediaAsDataUrl`).
 */

import { IMAGE_TO_VIDEO_API_PATH, IMAGE_TO_VIDEO_SERVICE } from '../constants/service-table.js';
import { ImageToVideoRequest, type VideoJob } from '../contracts/video.js';
import { describeIssues, listIssues } from '../errors/describe-issues.js';
import { ValidationError } from '../errors/polymodal-error.js';
import type { CallOptions } from '../http/call-options.js';
import type { HttpClient } from '../http/http-client.js';
import type { JobEngine } from '../jobs/job-engine.js';
import type { JobPollOptions, JobWaitOptions } from '../jobs/job-resource.js';
import type { PollOutcome } from '../jobs/poll-job.js';
import { checkImageDataUrl } from '../media/check-image-data-url.js';
import type { SubmittedVideo } from './create-catalog-video-client.js';
import { checkMediaReference, createVideoJobClient, type VideoSubmitOptions } from './video-job-client.js';
export const IMAGE_TO_VIDEO_DEFAULT_MODEL = 'imgvid-standard';

export type ImageToVideoInput = ImageToVideoRequest & { aspectRatio?: ImageToVideoRequest['aspect_ratio'] };

export interface ImageToVideoClient {
  submit(request: ImageToVideoInput, options?: VideoSubmitOptions): Promise<SubmittedVideo>;
  /** One read of the job. */
  retrieve(requestId: string, options?: CallOptions): Promise<VideoJob>;
  /** Waits until the job stops or `deadline` comes, never reading faster than the service's interval. */
  poll(requestId: string, options: JobPollOptions<VideoJob>): Promise<PollOutcome<VideoJob>>;
  wait(requestId: string, options?: JobWaitOptions<VideoJob>): Promise<VideoJob>;
}

export function createImageToVideoClient(options: {
  http: HttpClient;
  engine?: JobEngine;
  pollIntervalMs?: number;
}): ImageToVideoClient {
  const { http, engine } = options;
  const jobs = createVideoJobClient({
    http,
    apiPath: IMAGE_TO_VIDEO_API_PATH,
    service: IMAGE_TO_VIDEO_SERVICE,
    engine,
    ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
  });

  async function submit(input: ImageToVideoInput, extra: VideoSubmitOptions = {}): Promise<SubmittedVideo> {
    const { aspectRatio, ...rest } = input;
    if (aspectRatio !== undefined && rest.aspect_ratio !== undefined && aspectRatio !== rest.aspect_ratio) {
      throw new ValidationError('aspect_ratio and aspectRatio disagree. Nothing was sent.', [
        { path: 'aspect_ratio', message: 'conflicting alias' },
      ]);
    }
    const checked = {
      ...rest,
      ...(aspectRatio !== undefined && rest.aspect_ratio === undefined ? { aspect_ratio: aspectRatio } : {}),
    };
    const parsed = ImageToVideoRequest.safeParse(checked);
    if (!parsed.success) {
      const issues = describeIssues(parsed.error, checked);
      throw new ValidationError(
        `The image-to-video request is invalid: ${listIssues(issues)}. Nothing was sent.`,
        issues,
      );
    }
    const body = parsed.data;
    checkMediaReference(body.image.url, 'image.url');
    // An inline image is decoded here: a truncated one must not start a paid job.
    if (body.image.url.startsWith('data:')) checkImageDataUrl(body.image.url, 'image.url');
    const model = body.model ?? IMAGE_TO_VIDEO_DEFAULT_MODEL;
    const started = await jobs.start(body, body.prompt.slice(0, 80), extra);
    return {
      requestId: started.id,
      status: started.status,
      model,
      resumed: started.resumed,
      joined: started.joined,
    };
  }

  return { submit, retrieve: jobs.retrieve, poll: jobs.poll, wait: jobs.wait };
}
