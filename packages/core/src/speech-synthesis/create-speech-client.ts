/**
 * Client of the speech synthesis service (`/api/tts/v1`), following the spec's client rules, each in a
 * module of its own:
 *
 * - submit-speech.ts: one task, paid once — a slot of the key, then a start through the job engine.
 * - requeue-on-busy.ts: a POST is retried automatically only after an explicit 429 (no task was admitted);
 *   after a timeout or a reset it is not, since the task may exist (the job ledger then refuses an identical
 *   request until the caller allows a resubmission).
 * - speech-tasks.ts: status reads on the job engine's one polling loop, at the spec's growing pace, never
 *   sooner than the last Retry-After; a 429 on a status read is a pause, not a failure.
 * - concurrency-governor.ts, task-slots.ts: a per-key governor keeps unfinished tasks within the key's
 *   `concurrentSessions` (configured, or learned from a 429's `concurrentLimit`; 4 until known), so a batch
 *   does not provoke 429s; queued work hears its position.
 * - synthesize-text.ts: text of any length, split at sentence boundaries into parts of at most 200
 *   characters, synthesised under the governor and joined in order; text-synthesis-job.ts makes it a job of
 *   the ledger (`speech-text`) that outlives a call and a restart.
 * - register-voice.ts: custom voices, registered once per recording.
 */
import type { SpeechRequest, SpeechTask } from '../contracts/speech-synthesis.js';
import type { MediaDownloader } from '../download/download-media.js';
import type { FileAccess } from '../files/create-file-access.js';
import type { CallOptions } from '../http/call-options.js';
import type { HttpClient } from '../http/http-client.js';
import { createJobEngine } from '../jobs/create-job-engine.js';
import type { JobEngine } from '../jobs/job-engine.js';
import type { JobPollOptions, JobWaitOptions } from '../jobs/job-resource.js';
import type { PollOutcome } from '../jobs/poll-job.js';
import type { LedgerEntry } from '../ledger/create-job-ledger.js';
import { sleep as defaultSleep, type SleepFunction } from '../util/sleep.js';
import { ConcurrencyGovernor, type SpeechGovernor } from './concurrency-governor.js';
import { type RegisteredVoice, type RegisterVoiceOptions, registerVoice } from './register-voice.js';
import { listRegisteredVoices } from './registered-voices.js';
import type { SpeechClientDeps, SpeechPlatform, SpeechStats } from './speech-client-deps.js';
import {
  type TextSpeechRequest,
  type TextSynthesisPartPlan,
  textParts,
  validateSpeechRequest,
} from './speech-request.js';
import {
  defineSpeechTasks,
  retrieveSpeechTask,
  type SpeechTaskRead,
  type SpeechWaitOptions,
  type SubmittedSpeech,
} from './speech-tasks.js';
import { jitterOf } from './speech-timing.js';
import { type SpeechSubmitOptions, submitSpeech, synthesizeSpeech } from './submit-speech.js';
import { synthesizeText, type TextSynthesis, type TextSynthesisOptions } from './synthesize-text.js';
import { TaskSlots } from './task-slots.js';
import { retrieveSpeechText, type SpeechTextJobOptions, startSpeechText } from './text-synthesis-job.js';
import { type SpeechTextJob, SpeechTextRuns } from './text-synthesis-runs.js';

export interface SpeechClientOptions {
  http: HttpClient;
  /** The job engine (claims, ledger, the polling loop); default one without a ledger. */
  engine?: JobEngine;
  /** Where a speech-text job saves its WAV (and where local voice recordings are read). */
  files?: FileAccess;
  /** Needed by synthesizeText (to fetch the parts). */
  downloader?: MediaDownloader;
  /** The key's concurrentSessions, when known (otherwise learned from a 429). */
  concurrentSessions?: number;
  /** Tasks in flight while the limit is unknown. Default 4. */
  initialConcurrency?: number;
  /**
   * The governor to take slots from, e.g. one shared by server replicas on one key; then
   * `concurrentSessions` and `initialConcurrency` are the governor's to apply. Default: one of this client.
   */
  governor?: SpeechGovernor;
  /** Used for 429 pauses, and by the default engine. */
  sleep?: SleepFunction;
  random?: () => number;
  /** The clock of deadlines (and of the default engine). */
  now?: () => number;
}

export interface SpeechClient {
  /** The request with every rule of the service checked; throws ValidationError. */
  validate(request: SpeechRequest): SpeechRequest;
  submit(request: SpeechRequest, options?: SpeechSubmitOptions): Promise<SubmittedSpeech>;
  /** One read of a task, with the pause the service asked for before the next read. */
  retrieve(taskId: string, options?: CallOptions): Promise<SpeechTaskRead>;
  /** Waits until `deadline` at most: `done: false` with the newest task then, never an error for time. */
  poll(taskId: string, options: JobPollOptions<SpeechTask>): Promise<PollOutcome<SpeechTask>>;
  /** Polls until the task is ready; FAILURE → JobFailedError; the time limit → PollingTimeoutError. */
  wait(taskId: string, options?: JobWaitOptions<SpeechTask>): Promise<SpeechTask>;
  /** submit + wait; a FAILURE → JobFailedError. */
  synthesize(
    request: SpeechRequest,
    options?: SpeechSubmitOptions & SpeechWaitOptions,
  ): Promise<{ task: SpeechTask; resumed: boolean }>;
  synthesizeText(request: TextSpeechRequest, options?: TextSynthesisOptions): Promise<TextSynthesis>;
  /**
   * The parts `synthesizeText` would send for this request, in order, each with the fingerprint of the
   * ledger entry that records its task (every part is checked; throws ValidationError). Sends nothing.
   */
  textParts(request: TextSpeechRequest): TextSynthesisPartPlan[];
  /**
   * `synthesizeText` as a job of the ledger (`speech-text`) that runs on after the call and is saved into the
   * output directory: started, or joined when the same request runs or ran (its parts reused, not paid again).
   */
  startTextJob(request: TextSpeechRequest, options?: SpeechTextJobOptions): Promise<SpeechTextJob>;
  /** The speech-text job behind a handle, resumed here when no process runs it; undefined when unknown. */
  retrieveTextJob(id: string): Promise<SpeechTextJob | undefined>;
  registerVoice(options: RegisterVoiceOptions): Promise<RegisteredVoice>;
  /** Voices this installation registered, newest first (from the job ledger). */
  listVoices(): Promise<LedgerEntry[]>;
  readonly governor: SpeechGovernor;
  stats(): SpeechStats;
}

export function createSpeechClient(options: SpeechClientOptions): SpeechClient {
  const deps = speechClientDeps(options);
  const { tasks } = deps;
  return {
    validate: validateSpeechRequest,
    submit: (request, extra) => submitSpeech(deps, request, extra),
    retrieve: (taskId, extra) => retrieveSpeechTask(tasks, taskId, extra),
    poll: tasks.poll,
    wait: tasks.wait,
    synthesize: (request, extra) => synthesizeSpeech(deps, request, extra),
    synthesizeText: (request, extra) => synthesizeText(deps, request, extra),
    textParts,
    startTextJob: (request, extra) => startSpeechText(deps, request, extra),
    retrieveTextJob: (id) => retrieveSpeechText(deps, id),
    registerVoice: (input) => registerVoice(deps, input),
    listVoices: () => listRegisteredVoices(deps.engine),
    governor: deps.governor,
    stats: () => ({ ...deps.stats }),
  };
}

function speechClientDeps(options: SpeechClientOptions): SpeechClientDeps {
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const governor: SpeechGovernor =
    options.governor ??
    new ConcurrencyGovernor({
      ...(options.concurrentSessions === undefined ? {} : { limit: options.concurrentSessions }),
      ...(options.initialConcurrency === undefined ? {} : { initialLimit: options.initialConcurrency }),
    });
  const stats: SpeechStats = { posts: 0, busyAnswers: 0, peakActive: 0 };
  const platform: SpeechPlatform = {
    http: options.http,
    engine: options.engine ?? createJobEngine({ sleep, random, now }),
    governor,
    slots: new TaskSlots(() => {
      stats.peakActive = Math.max(stats.peakActive, governor.active);
    }),
    stats,
    sleep,
    now,
    jitter: jitterOf(random),
  };
  return {
    ...platform,
    tasks: defineSpeechTasks(platform),
    files: options.files,
    downloader: options.downloader,
    textRuns: new SpeechTextRuns(),
  };
}
