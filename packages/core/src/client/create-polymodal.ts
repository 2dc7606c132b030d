/**
 * Entry point for applications: one object holding the configured service clients, sharing one HTTP
 * connection pool and one job ledger. The API key stays inside the HTTP client's closure; it is not a
 * property of anything returned here.
 */
import path from 'node:path';
import { defaultStateDir } from '../config/default-state-dir.js';
import { resolveConfig } from '../config/resolve-config.js';
import { createMediaDownloader, type MediaDownloader } from '../download/download-media.js';
import { createFileAccess, type FileAccess } from '../files/create-file-access.js';
import { createFlashcardsClient } from '../flashcards/create-flashcards-client.js';
import type { FlashcardsClient } from '../flashcards/flashcards-types.js';
import { createHttpClient, type HttpClientOptions } from '../http/http-client.js';
import { createJobEngine } from '../jobs/create-job-engine.js';
import type { JobEngine, JobEngineLogger } from '../jobs/job-engine.js';
import { createJobLedger, type JobLedger } from '../ledger/create-job-ledger.js';
import { createLlmClient, type LlmClient } from '../llm/create-llm-client.js';
import { createMeetingClient } from '../meeting/create-meeting-client.js';
import type { MeetingClient } from '../meeting/meeting-types.js';
import { createReadingScoreClient } from '../reading-score/create-reading-score-client.js';
import type { ReadingScoreClient } from '../reading-score/reading-score-types.js';
import type { SpeechGovernor } from '../speech-synthesis/concurrency-governor.js';
import { createSpeechClient, type SpeechClient } from '../speech-synthesis/create-speech-client.js';
import type { PolymodalEvents } from '../telemetry/polymodal-events.js';
import { createThaiAsrClient } from '../thai-asr/create-thai-asr-client.js';
import type { ThaiAsrClient } from '../thai-asr/thai-asr-types.js';
import { type CatalogVideoClient, createCatalogVideoClient } from '../video/create-catalog-video-client.js';
import { createImageToVideoClient, type ImageToVideoClient } from '../video/create-image-to-video-client.js';

export interface PolymodalOptions {
  /** Default: `POLYMODAL_BASE_URL`. */
  baseUrl?: string;
  /** Default: `POLYMODAL_API_KEY`. */
  apiKey?: string;
  env?: NodeJS.ProcessEnv;
  /** Where the job ledger lives (`<stateDir>/jobs`). Default: `defaultStateDir()`. */
  stateDir?: string;
  /** A ledger to use, or false for none (jobs are then not resumable across runs). */
  ledger?: JobLedger | false;
  /** Where ledger trouble is reported (default: stderr, once per distinct problem). */
  logger?: JobEngineLogger;
  /**
   * The one file policy of every client: local files are read only inside its directories. Default:
   * `createFileAccess({ env })`, i.e. `POLYMODAL_ALLOWED_DIRS` (nothing readable when it is not set). A script
   * passes `createFileAccess({ allowedDirs: ['/path/to/recordings'] })`.
   */
  files?: FileAccess;
  /** Overrides of the HTTP client (timeouts, retries, dispatcher...). */
  http?: Partial<HttpClientOptions>;
  /**
   * Minimum time between two reads of a meeting job (default 5 s, as the service asks). Lower it only
   * against the sandbox (tests): the real platform asks for 5 s.
   */
  pollIntervalMs?: number;
  /** Minimum time between two reads of a video, flashcards or reading-score job (default 3/3/2 s; tests only). */
  mediaPollIntervalMs?: number;
  /**
   * Speech synthesis: the key's concurrentSessions when known, and tasks in flight until it is; or a
   * governor shared by several processes on the key (then those two are the governor's own settings).
   */
  speech?: { concurrentSessions?: number; initialConcurrency?: number; governor?: SpeechGovernor };
  /**
   * Told about the platform's answers and the jobs' starts and reads (for metrics). Its calls never throw
   * into a request; they carry no key, no job id and no path.
   */
  events?: PolymodalEvents;
}

export interface Polymodal {
  meeting: MeetingClient;
  llm: LlmClient;
  readingScore: ReadingScoreClient;
  thaiAsr: ThaiAsrClient;
  catalogVideo: CatalogVideoClient;
  imageToVideo: ImageToVideoClient;
  flashcards: FlashcardsClient;
  speech: SpeechClient;
  /** Downloads finished media (no key to other origins, redirects checked, atomic writes). */
  media: MediaDownloader;
  ledger: JobLedger | undefined;
  /** The job engine every client starts and waits on jobs through. */
  engine: JobEngine;
  config: { baseUrl: string };
  /** Closes the connection pool. */
  close(): Promise<void>;
}

export function createPolymodal(options: PolymodalOptions = {}): Polymodal {
  const env = options.env ?? process.env;
  const config = resolveConfig({
    ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    env,
  });
  const ledger =
    options.ledger === false
      ? undefined
      : (options.ledger ??
        createJobLedger({ dir: path.join(options.stateDir ?? defaultStateDir(env), 'jobs') }));
  const files = options.files ?? createFileAccess({ env });
  const events = options.events;
  const engine = createJobEngine({
    ledger,
    ...(options.logger ? { log: options.logger } : {}),
    ...(events ? { events } : {}),
  });
  // The meeting service authenticates with `Authorization: Bearer <key>`.
  const meetingHttp = createHttpClient({
    ...options.http,
    ...(events ? { events } : {}),
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    auth: 'bearer',
  });
  const meeting = createMeetingClient({
    http: meetingHttp,
    engine,
    files,
    ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
  });
  // The other services authenticate with `x-api-key`.
  const keyHttp = createHttpClient({
    ...options.http,
    ...(events ? { events } : {}),
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    auth: 'x-api-key',
  });
  const media = createMediaDownloader({
    platform: { baseUrl: config.baseUrl, authHeaders: () => ({ 'x-api-key': config.apiKey }) },
    files,
  });
  const ledgerOption = { engine };
  const mediaPoll =
    options.mediaPollIntervalMs === undefined ? {} : { pollIntervalMs: options.mediaPollIntervalMs };
  return {
    meeting,
    catalogVideo: createCatalogVideoClient({ http: keyHttp, ...ledgerOption, ...mediaPoll }),
    imageToVideo: createImageToVideoClient({ http: keyHttp, ...ledgerOption, ...mediaPoll }),
    flashcards: createFlashcardsClient({ http: keyHttp, ...ledgerOption, files, ...mediaPoll }),
    speech: createSpeechClient({
      http: keyHttp,
      ...ledgerOption,
      files,
      downloader: media,
      ...(options.speech?.concurrentSessions === undefined
        ? {}
        : { concurrentSessions: options.speech.concurrentSessions }),
      ...(options.speech?.initialConcurrency === undefined
        ? {}
        : { initialConcurrency: options.speech.initialConcurrency }),
      ...(options.speech?.governor === undefined ? {} : { governor: options.speech.governor }),
    }),
    media,
    llm: createLlmClient({ http: keyHttp, apiKey: config.apiKey }),
    thaiAsr: createThaiAsrClient({
      http: keyHttp,
      apiKey: config.apiKey,
      files,
    }),
    readingScore: createReadingScoreClient({
      http: keyHttp,
      engine,
      ...mediaPoll,
      files,
    }),
    ledger,
    engine,
    config: { baseUrl: config.baseUrl },
    close: async () => {
      await Promise.all([meetingHttp.close(), keyHttp.close(), media.close()]);
    },
  };
}
