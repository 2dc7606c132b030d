/**
 * Syntheses of whole texts running in this process: the in-process side of a `speech-text` job whose
 * record is in the job ledger (text-synthesis-job.ts). A long text takes longer than one tool call may
 * wait, so the work is not tied to a call: a caller follows it for as long as it likes, and a later caller
 * (or the same request again) joins it instead of starting anew. This is a cache of the runs of this
 * process, with their live progress and their followers; the ledger holds what another process, or this
 * one after a restart, needs to resume or answer.
 *
 * The work is not tied to one caller, but it is not ownerless either: when a following caller is cancelled
 * and no other one follows it, it stops sending parts (each costs credits, and nobody waits for the
 * result). Parts already sent finish and are recorded, so the same request resumes them.
 */
import { JobFailedError } from '../errors/polymodal-error.js';
import type { TextSynthesisJob, TextSynthesisProgress } from '../views/speech-job.js';
import type { TextSynthesisPart } from './synthesize-text.js';

export interface SpeechTextOutcome {
  savedPath: string;
  sizeBytes: number;
  durationSeconds: number | undefined;
  parts: TextSynthesisPart[];
  /** The joined audio; absent for a synthesis read back from the ledger when it is too big to inline. */
  wav?: Buffer | undefined;
}

/**
 * A synthesis of a whole text: running; done (the WAV is saved); failed (a part's task ended FAILURE: the
 * platform's own verdict); error (the work could not be done: credits, the network, the ledger…);
 * cancelled (every caller left).
 */
export interface SpeechTextJob extends TextSynthesisJob {
  /** The handle: `speech_` and the start of the request's fingerprint. */
  id: string;
  startedAt: number;
  /** Once done. */
  outcome?: SpeechTextOutcome;
  /** Calls `listener` on every progress change and once when the job stops; returns its removal. */
  onChange(listener: () => void): () => void;
  /**
   * Follows the job for one caller. If `signal` aborts (the caller was cancelled) while no other caller
   * follows the job, the job stops sending parts. Returns `leave`, for a caller that stops following for
   * another reason (its wait is over); calling it more than once is harmless.
   */
  follow(signal: AbortSignal): () => void;
}

/** The fields of a job that has stopped, as they are recorded. */
export type SettledSpeechText = Pick<SpeechTextJob, 'id' | 'state' | 'outcome' | 'reason' | 'progress'>;

/** How a run ended, written down (the ledger) before the job shows it, so that nobody sees it unwritten. */
export type SpeechTextRecorder = (settled: SettledSpeechText) => Promise<void>;

export type SpeechTextRun = (
  report: (progress: TextSynthesisProgress) => void,
  signal: AbortSignal,
) => Promise<SpeechTextOutcome>;

/** Finished jobs are kept this long for a later caller. */
const KEEP_MS = 60 * 60 * 1000;

export class SpeechTextRuns {
  readonly #runs = new Map<string, { job: SpeechTextJob; controller: AbortController }>();

  get(id: string): SpeechTextJob | undefined {
    return this.#runs.get(id)?.job;
  }

  /**
   * Returns the running (or finished) job with this id, or starts one with `run`. A job that failed,
   * errored, was cancelled or is stopping is not joined: it starts again, and the parts already made
   * resume from the ledger.
   */
  start(id: string, run: SpeechTextRun, record: SpeechTextRecorder): SpeechTextJob {
    const existing = this.#runs.get(id);
    if (
      existing &&
      !existing.controller.signal.aborted &&
      (existing.job.state === 'running' || existing.job.state === 'done')
    ) {
      return existing.job;
    }
    const controller = new AbortController();
    const listeners = new Set<() => void>();
    const job = runningJob(id, controller, listeners);
    const notify = () => {
      for (const listener of listeners) listener();
    };
    const settle = async (ended: Pick<SpeechTextJob, 'state' | 'outcome' | 'reason'>) => {
      // A recorder that fails has said so itself (the engine logs ledger trouble); the job still ends.
      await record({ id, progress: job.progress, ...ended }).catch(() => undefined);
      Object.assign(job, ended);
      notify();
    };
    run((progress) => {
      job.progress = progress;
      notify();
    }, controller.signal).then(
      (outcome) => settle({ outcome, state: 'done' }),
      (error: unknown) => settle({ reason: error, state: stateOfFailure(error, controller.signal) }),
    );
    const timer = setTimeout(() => {
      if (this.#runs.get(id)?.job === job) this.#runs.delete(id);
    }, KEEP_MS);
    timer.unref();
    this.#runs.set(id, { job, controller });
    return job;
  }
}

function stateOfFailure(error: unknown, signal: AbortSignal): SpeechTextJob['state'] {
  if (JobFailedError.isInstance(error)) return 'failed';
  return signal.aborted ? 'cancelled' : 'error';
}

/** A job that starts running now; `controller` stops it once its last follower is cancelled. */
function runningJob(id: string, controller: AbortController, listeners: Set<() => void>): SpeechTextJob {
  let following = 0;
  const job: SpeechTextJob = {
    id,
    startedAt: Date.now(),
    progress: { parts: 0, finished: 0, queued: 0, submitted: 0 },
    state: 'running',
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
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
  return job;
}

/** A synthesis that ended in another process or before a restart, as its ledger record tells it. */
export function finishedSpeechText(
  fields: Pick<SpeechTextJob, 'id' | 'state' | 'progress' | 'outcome' | 'reason' | 'startedAt'>,
): SpeechTextJob {
  // Nothing runs here: nobody is notified, and following it has nothing to stop.
  return { ...fields, onChange: () => () => undefined, follow: () => () => undefined };
}
