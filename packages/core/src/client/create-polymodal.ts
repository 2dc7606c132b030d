/**
 * Entry point for applications: one object holding the configured service clients, sharing one HTTP
 * connection pool and one job ledger. The API key stays inside the HTTP client's closure; it is not a
 * property of anything returned here.
 */
import path from 'node:path';
import { resolveConfig } from '../config/index.js';
import type { FileAccess } from '../files/index.js';
import { createHttpClient, type HttpClientOptions } from '../http/index.js';
import { createJobLedger, defaultStateDir, type JobLedger } from '../ledger/index.js';
import { createLlmClient, type LlmClient } from '../llm/index.js';
import { createMeetingClient, type MeetingClient } from '../meeting/index.js';
import { createReadingScoreClient, type ReadingScoreClient } from '../reading-score/index.js';
import { createThaiAsrClient, type ThaiAsrClient } from '../thai-asr/index.js';

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
  /** Confines the files the clients may read; without it any readable path is accepted. */
  files?: FileAccess;
  /** Overrides of the HTTP client (timeouts, retries, dispatcher...). */
  http?: Partial<HttpClientOptions>;
  /** Poll interval of `wait` (default 5 s, as the service asks). */
  pollIntervalMs?: number;
}

export interface Polymodal {
  meeting: MeetingClient;
  llm: LlmClient;
  readingScore: ReadingScoreClient;
  thaiAsr: ThaiAsrClient;
  ledger: JobLedger | undefined;
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
  // The meeting service authenticates with `Authorization: Bearer <key>`.
  const meetingHttp = createHttpClient({
    ...options.http,
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    auth: 'bearer',
  });
  const meeting = createMeetingClient({
    http: meetingHttp,
    ...(ledger ? { ledger } : {}),
    ...(options.files ? { files: options.files } : {}),
    ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
  });
  // The other services authenticate with `x-api-key`.
  const keyHttp = createHttpClient({
    ...options.http,
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    auth: 'x-api-key',
  });
  return {
    meeting,
    llm: createLlmClient({ http: keyHttp }),
    thaiAsr: createThaiAsrClient({
      http: keyHttp,
      apiKey: config.apiKey,
      ...(options.files ? { files: options.files } : {}),
    }),
    readingScore: createReadingScoreClient({
      http: keyHttp,
      ...(options.files ? { files: options.files } : {}),
    }),
    ledger,
    config: { baseUrl: config.baseUrl },
    close: async () => {
      await Promise.all([meetingHttp.close(), keyHttp.close()]);
    },
  };
}
