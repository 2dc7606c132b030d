/**
 * Speech jobs' readings (see job-view.ts). A platform task (one part of at most 200 characters) is
 * done once `ready`, a success only with its audio URL. A synthesis of a whole text (a `speech-text` job,
 * which a server runs over its parts rather than polls) is running, done, failed (a part's task ended
 * FAILURE), error (the work could not be done: credits, the network, the ledger…) or cancelled (every
 * caller left); its progress is its parts'. Apart from the client, so that a server shows a job without it.
 */

import type { SpeechTask } from '../contracts/speech-synthesis.js';
import { jobErrorText } from '../errors/job-error-text.js';
import { JobFailedError } from '../errors/polymodal-error.js';
import { defineJobKind, type JobView } from './job-view.js';

const succeeded = (task: SpeechTask) => task.successful === true && Boolean(task.result?.url);

export const SPEECH_TASK = defineJobKind<SpeechTask>({
  isDone: (task) => task.ready,
  status: (task) => task.state,
  progress: (task) => (task.ready ? 100 : 0),
  outcome: (task) => (!task.ready ? undefined : succeeded(task) ? 'succeeded' : 'failed'),
  error: (task) => (task.ready && !succeeded(task) ? (jobErrorText(task.error) ?? 'no reason given') : null),
});

export interface TextSynthesisProgress {
  parts: number;
  finished: number;
  /** Parts waiting for a free slot of the key. */
  queued: number;
  /** Parts whose task exists (sent and admitted, or resumed from an earlier run). */
  submitted: number;
}

export type TextSynthesisState = 'running' | 'done' | 'failed' | 'error' | 'cancelled';

/** A synthesis of a text as far as its answers show it. */
export interface TextSynthesisJob {
  state: TextSynthesisState;
  progress: TextSynthesisProgress;
  /** Once failed, errored or cancelled: why. */
  reason?: unknown;
}

/** The status a synthesis is shown (and recorded) with. */
export const TEXT_SYNTHESIS_STATUS: Readonly<Record<TextSynthesisState, string>> = {
  running: 'RUNNING',
  done: 'SUCCESS',
  failed: 'FAILURE',
  error: 'ERROR',
  cancelled: 'CANCELLED',
};

/** "3 of 7 parts done; 2 waiting for a free slot (key limit 3)" */
export function describeSpeechProgress(
  progress: TextSynthesisProgress,
  limit: number | undefined,
): { percent: number; message: string } {
  if (progress.parts === 0) return { percent: 0, message: 'starting' };
  const percent = (progress.finished / progress.parts) * 100;
  const waiting =
    progress.queued > 0
      ? `; ${progress.queued} waiting for a free slot (key limit ${limit ?? 'not yet known'})`
      : '';
  return { percent, message: `${progress.finished} of ${progress.parts} parts done${waiting}` };
}

/** Why a synthesis stopped without its audio, in words an agent can act on. */
export function speechTextReason(job: TextSynthesisJob): string {
  if (job.state === 'cancelled') {
    const { submitted, parts } = job.progress;
    return (
      `cancelled by the caller: ${submitted} of ${parts} parts had been sent and are kept (they are reused, ` +
      'not paid again); the others were not sent'
    );
  }
  const { reason } = job;
  if (JobFailedError.isInstance(reason)) {
    return `task ${reason.jobId} ended ${reason.status}: ${reason.errorMessage ?? 'no reason given'}`;
  }
  return reason instanceof Error ? reason.message : String(reason);
}

/** What the long-job answer needs to know of a synthesis; `limit` is the key's, while parts wait for it. */
export function speechTextView(job: TextSynthesisJob, limit: number | undefined): JobView {
  const { percent, message } = describeSpeechProgress(job.progress, limit);
  const stopped = job.state === 'failed' || job.state === 'cancelled' ? job.state : undefined;
  return {
    status: TEXT_SYNTHESIS_STATUS[job.state],
    progress: job.state === 'done' ? 100 : percent,
    message,
    outcome: job.state === 'done' ? 'succeeded' : stopped,
    error: stopped ? speechTextReason(job) : null,
  };
}
