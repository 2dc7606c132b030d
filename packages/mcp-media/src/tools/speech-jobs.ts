/**
 * Speech syntheses running in this server process: the in-process side of a synthesis job whose record is
 * in the job ledger (speech-synthesis-job.ts). A long text takes longer than one tool call may wait, so
 * the work is not tied to the call: the call waits up to `waitSeconds` and hands back a jobId; the work
 * goes on, and `get_speech` (or the same synthesize_speech call again) joins it instead of starting anew.
 * This map is a cache of the runs of this process, with their live progress and their followers; the
 * ledger holds what another process, or this one after a restart, needs to resume or answer.
 *
 * The work is not tied to one call, but it is not ownerless either: when a call following it is
 * cancelled and no other call is following it, it stops sending parts (each costs credits, and nobody is
 * waiting for the result). Parts already sent finish and are recorded, so the same request resumes them.
 */

import type { TextSynthesisProgress } from '@polymodal/core';
import { JobFailedError } from '@polymodal/core/errors';

export interface SpeechJobOutcome {
  savedPath: string;
  sizeBytes: number;
  durationSeconds: number | undefined;
  parts: { text: string; taskId: string; durationSeconds: number | undefined; resumed: boolean }[];
  /** The joined audio; absent for a synthesis read back from the ledger when it is too big to inline. */
  wav?: Buffer | undefined;
}

/**
 * running; done (the WAV is saved); failed (a part's task ended FAILURE: the platform's own verdict);
 * error (the work could not be done: credits, the network, the ledger…); cancelled (every caller left).
 */
export type SpeechJobState = 'running' | 'done' | 'failed' | 'error' | 'cancelled';

export interface SpeechJob {
  id: string;
  startedAt: number;
  progress: TextSynthesisProgress;
  state: SpeechJobState;
  /** Once done. */
  outcome?: SpeechJobOutcome;
  /** Once failed, errored or cancelled: why. */
  reason?: unknown;
  /** Called on every progress change and once when the job stops. */
  listeners: Set<() => void>;
  /**
   * Follows the job for one tool call. If `signal` aborts (the call was cancelled) while no other call
   * follows the job, the job stops sending parts. Returns `leave`, for a call that stops following for
   * another reason (its wait is over); calling it more than once is harmless.
   */
  follow(signal: AbortSignal): () => void;
}

/** How a run ended, written down (the ledger) before the job shows it, so that nobody sees it unwritten. */
export type SpeechJobRecorder = (
  settled: Pick<SpeechJob, 'id' | 'state' | 'outcome' | 'reason' | 'progress'>,
) => Promise<void>;

export interface SpeechJobs {
  get(id: string): SpeechJob | undefined;
  /**
   * Returns the running (or finished) job with this id, or starts one with `run`. A job that failed,
   * errored, was cancelled or is stopping is not joined: the call starts again, and the parts already
   * made resume from the ledger.
   */
  start(
    id: string,
    run: (
      report: (progress: TextSynthesisProgress) => void,
      signal: AbortSignal,
    ) => Promise<SpeechJobOutcome>,
    record?: SpeechJobRecorder,
  ): { job: SpeechJob; joined: boolean };
}

/** Finished jobs are kept this long for get_speech. */
const KEEP_MS = 60 * 60 * 1000;

export function createSpeechJobs(): SpeechJobs {
  const jobs = new Map<string, { job: SpeechJob; controller: AbortController }>();
  return {
    get: (id) => jobs.get(id)?.job,
    start(id, run, record) {
      const existing = jobs.get(id);
      if (
        existing &&
        !existing.controller.signal.aborted &&
        (existing.job.state === 'running' || existing.job.state === 'done')
      ) {
        return { job: existing.job, joined: true };
      }
      const controller = new AbortController();
      let following = 0;
      const notify = () => {
        for (const listener of job.listeners) listener();
      };
      const job: SpeechJob = {
        id,
        startedAt: Date.now(),
        progress: { parts: 0, finished: 0, queued: 0, submitted: 0 },
        listeners: new Set(),
        state: 'running',
        follow(signal) {
          let left = false;
          const leave = () => {
            if (left) return;
            left = true;
            following -= 1;
            signal.removeEventListener('abort', onCancel);
          };
          const onCancel = () => {
            leave();
            if (following === 0 && job.state === 'running') controller.abort(signal.reason);
          };
          following += 1;
          if (signal.aborted) onCancel();
          else signal.addEventListener('abort', onCancel, { once: true });
          return leave;
        },
      };
      const settle = async (ended: Pick<SpeechJob, 'state' | 'outcome' | 'reason'>) => {
        // A recorder that fails has said so itself (the engine logs ledger trouble); the job still ends.
        await record?.({ id, progress: job.progress, ...ended }).catch(() => undefined);
        Object.assign(job, ended);
        notify();
      };
      run((progress) => {
        job.progress = progress;
        notify();
      }, controller.signal).then(
        (outcome) => settle({ outcome, state: 'done' }),
        (error: unknown) =>
          settle({
            reason: error,
            state: JobFailedError.isInstance(error)
              ? 'failed'
              : controller.signal.aborted
                ? 'cancelled'
                : 'error',
          }),
      );
      const timer = setTimeout(() => {
        if (jobs.get(id)?.job === job) jobs.delete(id);
      }, KEEP_MS);
      timer.unref();
      jobs.set(id, { job, controller });
      return { job, joined: false };
    },
  };
}

/** A synthesis that ended in another process or before a restart, as its ledger record tells it. */
export function finishedSpeechJob(
  fields: Pick<SpeechJob, 'id' | 'state' | 'progress' | 'outcome' | 'reason' | 'startedAt'>,
): SpeechJob {
  // Nothing runs here: nobody is notified, and following it has nothing to stop.
  return { ...fields, listeners: new Set(), follow: () => () => undefined };
}
