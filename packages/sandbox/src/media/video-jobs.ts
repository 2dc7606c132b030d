/**
 * The job store shared by the two video services: queued → processing → done | failed | canceled,
 * computed from the sandbox clock; a done job's `video.url` points to the sandbox's playable MP4.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../framework/clock.js';
import { HttpError } from '../framework/http-error.js';
import { type TimelinePhase, timelinePosition } from './job-timeline.js';
import type { MediaFiles } from './media-files.js';
import { sampleVideo } from './media-fixtures.js';

export type VideoStatus = 'queued' | 'processing' | 'done' | 'failed' | 'canceled';

export interface VideoJob {
  id: string;
  userId: string;
  createdAt: number;
  phases: TimelinePhase<'queued' | 'processing'>[];
  outcome: 'done' | 'failed' | 'canceled';
  errorMessage: string | undefined;
  /** Fields every status answer carries (e.g. `model`, `provider`). */
  fields: Record<string, unknown>;
  /** Extra fields of the best-effort progress object. */
  progressFields: Record<string, unknown>;
  videoPath: string | undefined;
}

export interface VideoJobMoment {
  status: VideoStatus;
  /** 0..100 */
  percent: number;
}

export interface VideoJobs {
  create(options: {
    userId: string;
    queuedMs: number;
    processingMs: number;
    outcome: VideoJob['outcome'];
    errorMessage?: string;
    fields: Record<string, unknown>;
    progressFields?: Record<string, unknown>;
  }): VideoJob;
  find(id: string, userId: string): VideoJob;
  moment(job: VideoJob): VideoJobMoment;
  /** The status object; `absolute` turns the video path into an absolute URL. */
  view(job: VideoJob, toUrl: (path: string) => string): Record<string, unknown>;
  clear(): void;
}

export function createVideoJobs(options: { prefix: string; clock: Clock; files: MediaFiles }): VideoJobs {
  let jobs = new Map<string, VideoJob>();

  const moment = (job: VideoJob): VideoJobMoment => {
    const position = timelinePosition(job.createdAt, job.phases, options.clock.now());
    if (position.done) return { status: job.outcome, percent: job.outcome === 'done' ? 100 : 99 };
    if (position.phase === 'queued') return { status: 'queued', percent: 0 };
    return {
      status: 'processing',
      percent: Math.min(99, Math.max(1, Math.floor(position.phaseFraction * 100))),
    };
  };

  return {
    create(spec) {
      const job: VideoJob = {
        id: `${options.prefix}_${randomBytes(12).toString('hex')}`,
        userId: spec.userId,
        createdAt: options.clock.now(),
        phases: [
          { name: 'queued', ms: spec.queuedMs },
          { name: 'processing', ms: spec.processingMs },
        ],
        outcome: spec.outcome,
        errorMessage: spec.errorMessage,
        fields: spec.fields,
        progressFields: spec.progressFields ?? {},
        videoPath: undefined,
      };
      jobs.set(job.id, job);
      return job;
    },
    find(id, userId) {
      const job = jobs.get(id);
      // Another account's job is reported exactly like a missing one.
      if (!job || job.userId !== userId)
        throw new HttpError(404, `video job ${id} not found or not accessible with this key`);
      return job;
    },
    moment,
    view(job, toUrl) {
      const current = moment(job);
      const body: Record<string, unknown> = { request_id: job.id, status: current.status, ...job.fields };
      if (current.status === 'processing') {
        body.progress = {
          percent: current.percent,
          stage: 'generating',
          remote_status: 'running',
          ...job.progressFields,
        };
      } else if (current.status === 'queued') {
        body.progress = { percent: 0, stage: 'queued', remote_status: 'pending', ...job.progressFields };
      }
      if (current.status === 'done') {
        job.videoPath ??= options.files.add({
          name: `${job.id}.mp4`,
          contentType: 'video/mp4',
          body: { bytes: sampleVideo },
        });
        body.video = { url: toUrl(job.videoPath) };
      }
      if (current.status === 'failed') body.error = job.errorMessage ?? 'generation failed';
      return body;
    },
    clear() {
      jobs = new Map();
    },
  };
}
