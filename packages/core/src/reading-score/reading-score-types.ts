/** The reading score client's public shape: its methods, their options and their results. */
import type {
  ReadingScoreEngine,
  ReadingScoreResult,
  ReadingScoreTask,
  ReadingScoringOptions,
} from '../contracts/reading-score.js';
import type { FileAccess } from '../files/create-file-access.js';
import type { CallOptions } from '../http/call-options.js';
import type { HttpClient } from '../http/http-client.js';
import type { JobEngine } from '../jobs/job-engine.js';
import type { JobPollOptions, JobWaitOptions } from '../jobs/job-resource.js';
import type { PollOutcome } from '../jobs/poll-job.js';

/** `timeout` bounds the whole submission (like `deadline`); `maxRetries` applies to its requests. */
export interface ReadingScoreOptions extends CallOptions {
  /** The student's recording (local path). */
  studentAudio: string;
  /** What the student should have read; or give `referenceAudio`. */
  referenceText?: string;
  /** A recording of the reference reading (local path); or give `referenceText`. */
  referenceAudio?: string;
  engine?: ReadingScoreEngine;
  studentId?: string;
  lessonId?: string;
  /** Default true (the service's default). */
  includePronunciation?: boolean;
  /** Sent as the JSON string `scoring_options` (`include_pronunciation`, `asr_engine`, further keys as is). */
  scoringOptions?: ReadingScoringOptions;
  /**
   * Further text fields as a form would send them, by canonical name or any accepted alias (`referenceText`,
   * `studentId`, `lessonId`, `asrEngine`); they are sent under the canonical name. Files go through
   * `studentAudio`/`referenceAudio`, and a field given twice is refused.
   */
  formFields?: Readonly<Record<string, string>>;
  /** Use the older `/api/low-latency-asr/reading-score` route. */
  legacyRoute?: boolean;
  signal?: AbortSignal;
  /** How long to wait for an identical request already running elsewhere (epoch ms). */
  deadline?: number;
  /** Score again although this installation already scored the identical request. */
  forceNew?: boolean;
}

export type ReadingScoreSubmission = (
  | { kind: 'result'; result: ReadingScoreResult }
  | { kind: 'queued'; taskId: string; statusPath: string }
) & {
  /** True when the identical request's recorded result or task was returned and nothing was sent. */
  resumed: boolean;
  /** True when this call joined the identical request in flight. */
  joined: boolean;
};

export interface ReadingScoreClient {
  submit(options: ReadingScoreOptions): Promise<ReadingScoreSubmission>;
  /** One read of a queued task (by its `statusPath` or `taskId`). */
  retrieve(statusPathOrTaskId: string, options?: CallOptions): Promise<ReadingScoreTask>;
  /** Waits on a queued task until it is ready or `deadline` comes, at most one read per 2 s. */
  poll(
    statusPathOrTaskId: string,
    options: JobPollOptions<ReadingScoreTask>,
  ): Promise<PollOutcome<ReadingScoreTask>>;
  /** Polls a queued task until ready; a failed task → JobFailedError. */
  wait(statusPathOrTaskId: string, options?: JobWaitOptions<ReadingScoreTask>): Promise<ReadingScoreResult>;
  /** submit + wait when queued. */
  score(options: ReadingScoreOptions & JobWaitOptions<ReadingScoreTask>): Promise<ReadingScoreResult>;
}

export interface ReadingScoreClientOptions {
  http: HttpClient;
  engine?: JobEngine;
  files?: FileAccess;
  /** Minimum time between two reads of a task (default 2 s). */
  pollIntervalMs?: number;
}
