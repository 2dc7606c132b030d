/**
 * The toy word-count service's client, built as core's clients are (`packages/core/src/video/video-job-client.ts`
 * is the shortest real one): the job declared once as a job resource, and the paid start on the job engine,
 * from core's public entries only. In core it would be `packages/core/src/word-count/create-word-count-client.ts`,
 * registered in `create-polymodal.ts`.
 */
import { ValidationError } from '@polymodal/core/errors';
import { type CallOptions, type HttpClient, requestOptionsOf, startCall } from '@polymodal/core/http';
import {
  defineJobResource,
  type JobEngine,
  type JobPollOptions,
  type JobView,
  type JobWaitOptions,
  type PollOutcome,
  type StartedJob,
} from '@polymodal/core/jobs';
import { fingerprint } from '@polymodal/core/ledger';
import { WordCountJob, WordCountRequest } from './word-count-contract.js';
import { WORD_COUNT_API_PATH, WORD_COUNT_JOB, WORD_COUNT_SERVICE } from './word-count-job.js';

/** How long `wait` waits when the call does not say. */
export const WORD_COUNT_WAIT_TIMEOUT_MS = 10 * 60_000;

export interface WordCountClientOptions {
  http: HttpClient;
  /** The one job engine of the process (`polymodal.engine`): its ledger, its single flight, its intervals. */
  engine: JobEngine;
  /** Least time between two reads of a job. A platform service has none here: its table row's is used. */
  intervalMs: number;
}

/** `timeout` bounds the whole start like `deadline`. */
export interface WordCountStartOptions extends CallOptions {
  /** When the call must be over (epoch ms). */
  deadline?: number | undefined;
  /** Pay again for a new job even if an identical one was recorded. */
  forceNew?: boolean | undefined;
  /** Send again although an identical earlier request was cut off and may already have created a job. */
  allowResubmit?: boolean | undefined;
}

export interface WordCountClient {
  start(text: string, options?: WordCountStartOptions): Promise<StartedJob>;
  /** One read of the job. */
  retrieve(id: string, call?: CallOptions & { deadline?: number | undefined }): Promise<WordCountJob>;
  /** Waits on the job until it stops or `deadline` comes (then `done: false` with the newest job known). */
  poll(id: string, call: JobPollOptions<WordCountJob>): Promise<PollOutcome<WordCountJob>>;
  /** Waits until the job stops: JobFailedError when it failed, PollingTimeoutError after `timeoutMs`. */
  wait(id: string, call?: JobWaitOptions<WordCountJob>): Promise<WordCountJob>;
  view(job: WordCountJob): JobView;
}

const JOB_ID = /^[A-Za-z0-9_-]{1,100}$/;

function checkJobId(id: string): string {
  if (!JOB_ID.test(id)) {
    throw new ValidationError(`jobId ${JSON.stringify(id)} is not a word-count job id. Nothing was sent.`, [
      { path: 'jobId', message: 'invalid id' },
    ]);
  }
  return id;
}

/** The request checked against its contract before anything is sent. */
function checkRequest(request: WordCountRequest): WordCountRequest {
  const parsed = WordCountRequest.safeParse(request);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
  const listed = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
  throw new ValidationError(`Invalid word-count request: ${listed}. Nothing was sent.`, issues);
}

export function createWordCountClient(options: WordCountClientOptions): WordCountClient {
  const { http, engine } = options;

  // #region job-resource
  const jobs = defineJobResource<WordCountJob>({
    service: WORD_COUNT_SERVICE,
    kind: WORD_COUNT_JOB,
    engine,
    // A platform service leaves this out: the interval is its row's in core's service table.
    intervalMs: options.intervalMs,
    waitTimeoutMs: WORD_COUNT_WAIT_TIMEOUT_MS,
    locate: (id) => ({ id, path: `${WORD_COUNT_API_PATH}/jobs/${encodeURIComponent(checkJobId(id))}` }),
    fetch: (path, call) =>
      http.request({
        method: 'GET',
        path,
        schema: WordCountJob,
        idempotent: true,
        ...requestOptionsOf(call),
      }),
    // `wait` throws JobFailedError for a job that stopped without a count.
    failure: (job) => (job.status === 'done' ? undefined : { errorMessage: job.error ?? null }),
  });
  // #endregion

  // #region paid-start
  /**
   * Starts counting `text` at most once: an identical request in flight is joined, an identical request
   * recorded earlier (in any process on the ledger) is resumed. Nothing is sent for an invalid text.
   */
  async function start(text: string, options: WordCountStartOptions = {}): Promise<StartedJob> {
    const body = checkRequest({ text });
    const call = startCall(options);
    return engine.start({
      service: WORD_COUNT_SERVICE,
      // What makes two requests the same paid work: the validated body, nothing of how the caller waits.
      fingerprint: fingerprint({ service: WORD_COUNT_SERVICE, body }),
      // What list_jobs shows: never the text itself, which may be long or private.
      title: `${body.text.slice(0, 40)}${body.text.length > 40 ? '…' : ''}`,
      request: { characters: body.text.length },
      signal: call.signal,
      deadline: call.deadline,
      forceNew: call.forceNew,
      allowResubmit: call.allowResubmit,
      resubmitOption: 'allowResubmit',
      // A failed job is not worth resuming: the same text then starts a new one.
      reusable: (status) => status !== 'failed',
      current: jobs.currentStatus,
      // Not `resendable`: the service has no idempotency key, so a POST cut off after sending may have
      // created a job, and the same text then throws UncertainSubmissionError until `allowResubmit`.
      submit: async ({ signal }) => {
        const { data } = await http.request({
          method: 'POST',
          path: `${WORD_COUNT_API_PATH}/jobs`,
          json: body,
          schema: WordCountJob,
          idempotent: false,
          signal,
          maxRetries: call.maxRetries,
        });
        return { id: data.id, status: data.status };
      },
    });
  }
  // #endregion

  return { start, retrieve: jobs.retrieve, poll: jobs.poll, wait: jobs.wait, view: jobs.view };
}
