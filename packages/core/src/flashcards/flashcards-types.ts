/** The flashcards client's public shape: its methods, their options and their results. */
import type { FlashcardJob, FlashcardLimits, FlashcardOptions } from '../contracts/flashcards.js';
import type { FileAccess } from '../files/create-file-access.js';
import type { CallOptions } from '../http/call-options.js';
import type { HttpClient } from '../http/http-client.js';
import type { JobEngine } from '../jobs/job-engine.js';
import type { JobPollOptions, JobWaitOptions } from '../jobs/job-resource.js';
import type { PollOutcome } from '../jobs/poll-job.js';

export type FlashcardSourceType = 'youtube' | 'direct_video_url';

/** `timeout` bounds the whole start like `deadline`; `maxRetries` applies to the start request. */
export interface FlashcardStartOptions extends CallOptions {
  /** How long to wait for an identical start already running elsewhere (epoch ms). */
  deadline?: number;
  /** Start a new job even if this installation already made the same request. */
  forceNew?: boolean;
  onUploadProgress?: (sentBytes: number, totalBytes: number) => void;
}

export interface StartedFlashcards {
  jobId: string;
  status: string;
  /** The per-key limits the start response reported (absent when the job was resumed). */
  limits?: FlashcardLimits | undefined;
  idempotencyKey: string;
  resumed: boolean;
  /** True when this call joined an identical start in flight. */
  joined: boolean;
}

export interface FlashcardsClient {
  /** Uploads a local video (`video_file`) and starts a job. */
  startFromFile(
    file: string,
    options: FlashcardOptions,
    extra?: FlashcardStartOptions,
  ): Promise<StartedFlashcards>;
  /** Starts a job from a YouTube URL (default) or a public direct video URL. */
  startFromUrl(
    url: string,
    options: FlashcardOptions & { source_type?: FlashcardSourceType },
    extra?: FlashcardStartOptions,
  ): Promise<StartedFlashcards>;
  /** One read of the job (results with absolute clip URLs). */
  retrieve(jobId: string, options?: CallOptions): Promise<FlashcardJob>;
  /** Waits until the job stops or `deadline` comes, never reading faster than every 3 s. */
  poll(jobId: string, options: JobPollOptions<FlashcardJob>): Promise<PollOutcome<FlashcardJob>>;
  /** Polls until ready; a failed or cancelled job → JobFailedError. */
  wait(jobId: string, options?: JobWaitOptions<FlashcardJob>): Promise<FlashcardJob>;
  /** Limits from the last start response, if any. */
  readonly limits: FlashcardLimits | undefined;
}

export interface FlashcardsClientOptions {
  http: HttpClient;
  engine?: JobEngine;
  files?: FileAccess;
  /** Minimum time between two reads of a job (default 3 s). */
  pollIntervalMs?: number;
}
