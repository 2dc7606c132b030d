/**
 * Speech syntheses running in this server process. A long text takes longer than one tool call may wait,
 * so the work is not tied to the call: the call waits up to `waitSeconds` and hands back a jobId; the work
 * goes on, and `get_speech` (or the same synthesize_speech call again) joins it instead of starting anew.
 * Every part's task id is also in the job ledger, so after a restart the same request resumes the parts
 * already paid for.
 */
import type { TextSynthesisProgress } from '@polymodal/core';

export interface SpeechJobOutcome {
  savedPath: string;
  sizeBytes: number;
  durationSeconds: number | undefined;
  parts: { text: string; taskId: string; durationSeconds: number | undefined; resumed: boolean }[];
  wav: Buffer;
}

export interface SpeechJob {
  id: string;
  startedAt: number;
  progress: TextSynthesisProgress;
  /** Listeners of progress (one per waiting tool call). */
  listeners: Set<(progress: TextSynthesisProgress) => void>;
  promise: Promise<SpeechJobOutcome>;
  state: 'running' | 'done' | 'failed';
}

export interface SpeechJobs {
  get(id: string): SpeechJob | undefined;
  /** Returns the running job with this id, or starts one with `run`. */
  start(
    id: string,
    run: (report: (progress: TextSynthesisProgress) => void) => Promise<SpeechJobOutcome>,
  ): { job: SpeechJob; joined: boolean };
}

/** Finished jobs are kept this long for get_speech. */
const KEEP_MS = 60 * 60 * 1000;

export function createSpeechJobs(): SpeechJobs {
  const jobs = new Map<string, SpeechJob>();
  return {
    get: (id) => jobs.get(id),
    start(id, run) {
      const existing = jobs.get(id);
      // A failed job is not joined: calling again retries (finished parts resume from the ledger).
      if (existing && existing.state !== 'failed') return { job: existing, joined: true };
      const job: SpeechJob = {
        id,
        startedAt: Date.now(),
        progress: { parts: 0, finished: 0, queued: 0 },
        listeners: new Set(),
        state: 'running',
        promise: Promise.resolve() as unknown as Promise<SpeechJobOutcome>,
      };
      job.promise = run((progress) => {
        job.progress = progress;
        for (const listener of job.listeners) listener(progress);
      });
      job.promise.then(
        () => {
          job.state = 'done';
        },
        () => {
          job.state = 'failed';
        },
      );
      const timer = setTimeout(() => {
        if (jobs.get(id) === job) jobs.delete(id);
      }, KEEP_MS);
      timer.unref();
      jobs.set(id, job);
      return { job, joined: false };
    },
  };
}
