/**
 * What the speech client's modules share, built once per client by `createSpeechClient`: the platform and
 * the job engine, the key's governor and the slots this client's tasks hold, the counters `stats()`
 * reports, the clock, and what a long text needs besides (files to save into, a downloader for the parts).
 */
import type { MediaDownloader } from '../download/download-media.js';
import type { FileAccess } from '../files/create-file-access.js';
import type { HttpClient } from '../http/http-client.js';
import type { JobEngine } from '../jobs/job-engine.js';
import type { SleepFunction } from '../util/sleep.js';
import type { SpeechGovernor } from './concurrency-governor.js';
import type { SpeechTasks } from './speech-tasks.js';
import type { TaskSlots } from './task-slots.js';
import type { SpeechTextRuns } from './text-synthesis-runs.js';

export interface SpeechStats {
  /** POST requests sent. */
  posts: number;
  /** 429 answers received (to POSTs and status reads) and waited out. */
  busyAnswers: number;
  /** Largest number of this client's tasks unfinished at once. */
  peakActive: number;
}

/** What the status reads need (they are defined before the rest, which waits through them). */
export interface SpeechPlatform {
  http: HttpClient;
  engine: JobEngine;
  governor: SpeechGovernor;
  slots: TaskSlots;
  stats: SpeechStats;
  sleep: SleepFunction;
  now: () => number;
  /** A pause stretched by up to the spec's 10 % jitter. */
  jitter: (ms: number) => number;
}

export interface SpeechClientDeps extends SpeechPlatform {
  tasks: SpeechTasks;
  files: FileAccess | undefined;
  /** Needed by a long text (to fetch its parts). */
  downloader: MediaDownloader | undefined;
  /** Syntheses of whole texts running in this process. */
  textRuns: SpeechTextRuns;
}
