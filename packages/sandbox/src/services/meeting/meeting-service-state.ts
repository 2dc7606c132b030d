/**
 * What the meeting service keeps between requests: uploads (each a file on disk behind a signed receipt)
 * and jobs, with the lookups every route shares — authentication with the feature check, a job found
 * only by its owner on its site, and a job's state at a moment of the clock.
 */
import { randomBytes } from 'node:crypto';
import type { ParsedSandboxConfig } from '../../config/sandbox-config.js';
import type { RecordingScript } from '../../fixtures/recording-script.js';
import type { Accounts } from '../../framework/accounts.js';
import type { KeyScheme, Principal } from '../../framework/authenticator.js';
import type { Clock } from '../../framework/clock.js';
import type { CounterRegistry } from '../../framework/counters.js';
import { HttpError } from '../../framework/http-error.js';
import type { RequestContext } from '../../framework/request-context.js';
import type { ServiceContext } from '../../framework/sandbox-service.js';
import type { MeetingSummary } from './build-summary.js';
import type { TranscriptSegment } from './build-transcript.js';
import { type Artifacts, type FinalStatus, type JobMoment, type JobRun, runMoment } from './job-timeline.js';
import { createReceiptSigner, type ReceiptSigner } from './upload-receipt.js';

const KEY_SCHEMES: readonly KeyScheme[] = ['x-api-key', 'bearer'];

export interface UploadRecord {
  id: string;
  userId: string;
  site: string;
  filePath: string;
  size: number;
  sha256: Buffer;
  filename: string | undefined;
  durationSeconds: number;
  durationEstimated: boolean;
  script: RecordingScript | undefined;
  issuedAt: number;
  /** The job its receipt created; a second job from the same receipt answers this one. */
  jobId: string | undefined;
}

export interface JobRecord {
  id: string;
  /** Creation order: the job list is newest first, and runs that end together settle in this order. */
  sequence: number;
  userId: string;
  site: string;
  upload: UploadRecord;
  createdAt: number;
  title: string;
  sourceLanguage: string;
  targetLanguage: string;
  asrEngine: string;
  noiseReduction: boolean;
  minSpeakers: number;
  maxSpeakers: number;
  credits: number;
  creditsCharged: boolean;
  transcript: TranscriptSegment[];
  summary: MeetingSummary | undefined;
  speakerNames: Record<string, string>;
  attempts: number;
  run: JobRun | undefined;
  /** The state when no run is going on. */
  stopped:
    | { status: FinalStatus; progress: number; artifacts: Artifacts; errorMessage: string | null }
    | undefined;
}

export interface MeetingServiceState {
  accounts: Accounts;
  clock: Clock;
  counters: CounterRegistry;
  config: ParsedSandboxConfig;
  speed: number;
  dataDir: string;
  signer: ReceiptSigner;
  uploads: Map<string, UploadRecord>;
  jobs: Map<string, JobRecord>;
  /** The last job's `sequence`. */
  sequence: number;
}

export function createMeetingServiceState(context: ServiceContext): MeetingServiceState {
  const { accounts, clock, counters, config, speed, dataDir } = context;
  return {
    accounts,
    clock,
    counters,
    config,
    speed,
    dataDir,
    signer: createReceiptSigner(config.receiptSecret ?? randomBytes(32)),
    uploads: new Map(),
    jobs: new Map(),
    sequence: 0,
  };
}

export function authenticate(state: MeetingServiceState, request: RequestContext): Principal {
  const principal = request.authenticate(KEY_SCHEMES);
  if (!state.accounts.hasFeature(principal.user.id, 'meetingSummary')) {
    throw new HttpError(403, 'meeting summaries are not enabled for this account');
  }
  return principal;
}

export function findJob(state: MeetingServiceState, principal: Principal, id: string): JobRecord {
  const job = state.jobs.get(id);
  // Another user's recording is reported exactly like a missing one.
  if (!job || job.userId !== principal.user.id || job.site !== principal.user.site) {
    throw new HttpError(404, `recording ${id} not found or not accessible with this key`);
  }
  return job;
}

/** The job's state at `now`: computed from its run, or the state it stopped in. */
export function moment(state: MeetingServiceState, job: JobRecord, now = state.clock.now()): JobMoment {
  if (job.run) return runMoment(job.run, now);
  const stopped = job.stopped!;
  return {
    status: stopped.status,
    progress: stopped.progress,
    artifacts: stopped.artifacts,
    errorMessage: stopped.errorMessage,
  };
}
