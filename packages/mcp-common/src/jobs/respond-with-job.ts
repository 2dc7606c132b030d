/**
 * The one way a Polymodal tool waits on a platform job and answers: it waits at most `waitSeconds`
 * (through the core client's `poll`, the job engine's one loop), sends progress to clients that asked for
 * it, and answers with the job — or, when the job outlives the wait, with a handle naming the tool that
 * continues. Hosts cut tool calls off at about 60 s, so "still running" is never an error and never a late
 * answer.
 *
 * One rule for a job that stopped without its result, across every server: a FAILED or CANCELLED job is
 * not a failed tool call — the call did its work, which was to find out — so the result is not `isError`.
 * It has `done: true`, `outcome: "failed"` or `"cancelled"`, the platform's own `error` text, and `next`
 * saying how to try again (and whether that costs); its text starts with the same facts. `isError` is kept
 * for calls that could not do their work (bad input, the platform refusing or unreachable).
 */

import type { PollOutcome } from '@polymodal/core/jobs';
import type { JobOutcome, JobView } from '@polymodal/core/views';
import { drainSignal } from '../deadline/tool-deadline.js';
import type { CallToolResult } from '../protocol/sdk-types.js';
import { keepWaitingHint } from './job-handle.js';
import {
  createProgressReporter,
  formatProgressMessage,
  MAX_WAIT_SECONDS,
  type ProgressReporter,
  type WaitExtra,
} from './long-job-contract.js';

// What the answer needs to know about a job: core's, where each service's view is declared.
export type { JobOutcome, JobView };

/** The request a tool's client `poll` receives. */
export interface JobPollRequest<T> {
  deadline: number;
  firstReadDeadline: number;
  signal: AbortSignal;
  onProgress: (job: T) => Promise<void>;
}

export interface PresentedJob {
  text: string;
  /** Further content after the text (resource links to saved files). */
  links?: CallToolResult['content'];
  /** Fields added to the structured result (beside jobId, status, progress, done, next, outcome, error). */
  structured?: Record<string, unknown>;
  /** What to call next; default: keep waiting (running), or the presenter must say (stopped). */
  next?: string;
}

export interface RespondWithJobOptions<T> {
  extra: WaitExtra;
  jobId: string;
  /** How long this call may wait for the job to stop (the tool's `waitSeconds`, 0..50). */
  waitSeconds: number;
  /** When the call must have answered (its tool deadline, epoch ms); the first read may take until then. */
  deadline: number;
  poll: (request: JobPollRequest<T>) => Promise<PollOutcome<T>>;
  view: (job: T) => JobView;
  /** The tool that continues the wait (`get_meeting`, `get_video_job`, …). */
  waitTool: string;
  /** What is known before any read (e.g. from the start), for a handle when nothing can be read in time. */
  known?: { status: string; progress?: number | undefined };
  /**
   * Where to look, only when nothing could be read in time and nothing is `known`: the status last recorded
   * (the ledger's), so a job seen finished is not called UNKNOWN. Looked up in that case only.
   */
  lastKnown?: () => Promise<{ status: string } | undefined>;
  /** Presents the job (running or stopped); the common fields are added around it. */
  present: (job: T, done: boolean) => PresentedJob | Promise<PresentedJob>;
  /** A sentence before the text (e.g. "Resumed the job already submitted for this file."). */
  lead?: string | undefined;
  /** Fields every answer carries (e.g. `resumed`). */
  structured?: Record<string, unknown>;
  /** Share one reporter with an earlier phase (an upload) so that progress stays monotonic. */
  reporter?: ProgressReporter;
}

/** The fields every job answer carries. */
export interface JobAnswerFields {
  jobId: string;
  status: string;
  progress: number;
  done: boolean;
  next: string;
  outcome?: JobOutcome;
  error?: string;
}

/**
 * Waits up to `waitSeconds` for the job and answers. The client's cancellation ends the wait at once by
 * rethrowing the abort reason (the job keeps running on the platform and stays recorded). A server that
 * shuts down ends the wait too, but answers: the handle, with the job as last seen.
 */
export async function respondWithJob<T>(options: RespondWithJobOptions<T>): Promise<CallToolResult> {
  const { extra } = options;
  const reporter = options.reporter ?? createProgressReporter(extra);
  const waitMs = Math.min(Math.max(options.waitSeconds, 0), MAX_WAIT_SECONDS) * 1000;
  const deadline = Math.min(Date.now() + waitMs, options.deadline);
  let last: T | undefined;
  const polling = options.poll({
    deadline,
    firstReadDeadline: options.deadline,
    signal: extra.signal,
    onProgress: async (job) => {
      last = job;
      const view = options.view(job);
      const progress = clampProgress(view.progress);
      await reporter.report(progress, view.message ?? formatProgressMessage(view.status, progress));
    },
  });
  const first = await untilDrained(polling, drainSignal());
  if (first === DRAINED) {
    // The wait is left, not cancelled (cancelling would stop work some tools share with other callers,
    // e.g. a speech batch): the process is about to end, and the job goes on on the platform.
    polling.catch(() => undefined);
    return answerWithJob(options, last, false);
  }
  const outcome = first;
  extra.signal.throwIfAborted();
  return answerWithJob(options, outcome.value, outcome.done);
}

/** The answer for a job as last seen (no waiting): the same shape `respondWithJob` gives. */
export async function answerWithJob<T>(
  options: Pick<
    RespondWithJobOptions<T>,
    'jobId' | 'view' | 'waitTool' | 'known' | 'lastKnown' | 'present' | 'lead' | 'structured'
  >,
  job: T | undefined,
  done: boolean,
): Promise<CallToolResult> {
  const lead = options.lead ? `${options.lead} ` : '';
  if (job === undefined) {
    // Nothing could be read in time (a Retry-After, a platform that did not answer): a handle, honestly.
    const recorded = options.known ? undefined : await options.lastKnown?.().catch(() => undefined);
    const status = options.known?.status ?? recorded?.status ?? 'UNKNOWN';
    const fields: JobAnswerFields = {
      jobId: options.jobId,
      status,
      progress: clampProgress(options.known?.progress),
      done: false,
      next: keepWaitingHint(options.waitTool, options.jobId),
    };
    return {
      content: [
        {
          type: 'text',
          text:
            `${lead}Job ${options.jobId} could not be read within this call (last known status: ${status}` +
            `${recorded ? ', as last recorded' : ''}); it stays recorded, nothing is lost. Next: ${fields.next}.`,
        },
      ],
      structuredContent: { ...fields, ...options.structured },
    };
  }
  const view = options.view(job);
  const presented = await options.present(job, done);
  const next =
    presented.next ?? (done ? 'nothing further is needed' : keepWaitingHint(options.waitTool, options.jobId));
  const fields: JobAnswerFields = {
    jobId: options.jobId,
    status: view.status,
    progress: clampProgress(view.progress),
    done,
    next,
    ...(done && view.outcome ? { outcome: view.outcome } : {}),
    ...(done && view.error ? { error: view.error } : {}),
  };
  const text = presented.text.includes('Next:') ? presented.text : `${presented.text}\nNext: ${next}.`;
  return {
    content: [{ type: 'text', text: `${lead}${text}` }, ...(presented.links ?? [])],
    structuredContent: { ...fields, ...presented.structured, ...options.structured },
  };
}

const DRAINED = Symbol('drained');

/** The poll's outcome, or DRAINED as soon as the server starts shutting down (whichever comes first). */
async function untilDrained<O>(
  polling: Promise<O>,
  draining: AbortSignal | undefined,
): Promise<O | typeof DRAINED> {
  if (!draining) return polling;
  if (draining.aborted) return DRAINED;
  const stop = new AbortController();
  const drained = new Promise<typeof DRAINED>((resolve) => {
    draining.addEventListener('abort', () => resolve(DRAINED), { once: true, signal: stop.signal });
  });
  try {
    return await Promise.race([polling, drained]);
  } finally {
    stop.abort();
  }
}

function clampProgress(value: number | undefined): number {
  if (value === undefined || !Number.isFinite(value)) return 0;
  return Math.min(100, Math.max(0, value));
}
