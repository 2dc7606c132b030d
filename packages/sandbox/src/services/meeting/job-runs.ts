/**
 * Starting a job's run (processing, resummarising or retranslating) and settling the runs that are over
 * on the clock: a completed run is charged once, or fails when the account can no longer pay.
 */
import { rm } from 'node:fs/promises';
import type { MeetingState } from '@polymodal/core';
import { MEETING_RECEIPT_LIFETIME_MS } from '@polymodal/core/constants';
import {
  type Artifacts,
  type FinalStatus,
  type JobMoment,
  type JobRun,
  planPhases,
  processStates,
  runMoment,
} from './job-timeline.js';
import type { JobRecord, MeetingServiceState } from './meeting-service-state.js';

export interface RunStart {
  kind: JobRun['kind'];
  /** The artifacts that exist during the whole run. */
  base: Artifacts;
}

/** The states a run goes through: only what it has to redo. */
function runStates(job: JobRecord, { kind, base }: RunStart): MeetingState[] {
  if (kind === 'process') return processStates(job.noiseReduction);
  if (kind === 'resummarize') return [...(base.translation ? [] : (['TRANSLATING'] as const)), 'SUMMARIZING'];
  return ['TRANSLATING', ...(base.summary ? [] : (['SUMMARIZING'] as const))];
}

export function startRun(state: MeetingServiceState, job: JobRecord, start: RunStart): void {
  const { kind, base } = start;
  const states = runStates(job, start);
  const script = job.upload.script;
  if (kind === 'process') job.attempts++;
  // A recording script may ask processing to fail, on every attempt or on the first few.
  const fails =
    kind === 'process' &&
    script?.fail !== undefined &&
    (script.failAttempts === undefined || job.attempts <= script.failAttempts);
  job.run = {
    kind,
    startedAt: state.clock.now(),
    phases: planPhases(states, job.upload.durationSeconds, state.speed),
    base,
    ...(fails ? { failure: { afterState: 'TRANSCRIBING' as const, message: script!.fail! } } : {}),
  };
  job.stopped = undefined;
}

/** Ends a finished run: a completion is charged once, and fails when the account cannot pay. */
function stopRun(state: MeetingServiceState, job: JobRecord, current: JobMoment): void {
  job.run = undefined;
  if (current.status === 'COMPLETED' && !job.creditsCharged) {
    if (state.accounts.charge(job.userId, job.credits)) {
      job.creditsCharged = true;
      state.counters.increment('creditsCharged', job.userId, job.credits);
    } else {
      job.stopped = {
        status: 'FAILED',
        progress: 99,
        artifacts: { ...current.artifacts, summary: false },
        errorMessage: `insufficient credits to complete: this recording costs ${job.credits} credits; add credits, then retry`,
      };
      return;
    }
  }
  job.stopped = {
    status: current.status as FinalStatus,
    progress: current.progress,
    artifacts: current.artifacts,
    errorMessage: current.errorMessage,
  };
}

/**
 * Ends the runs that are over on the clock, in the order they ended (so credits run out for the later
 * one), and drops uploads never turned into a job once their receipt has expired.
 */
export function settleJobs(state: MeetingServiceState): void {
  const now = state.clock.now();
  const finished: { job: JobRecord; moment: JobMoment; at: number }[] = [];
  for (const job of state.jobs.values()) {
    if (!job.run) continue;
    const current = runMoment(job.run, now);
    if (current.finished) finished.push({ job, moment: current, at: current.finished.at });
  }
  finished.sort((a, b) => a.at - b.at || a.job.sequence - b.job.sequence);
  for (const { job, moment } of finished) stopRun(state, job, moment);
  for (const upload of state.uploads.values()) {
    if (!upload.jobId && now - upload.issuedAt > MEETING_RECEIPT_LIFETIME_MS) {
      state.uploads.delete(upload.id);
      void rm(upload.filePath, { force: true });
    }
  }
}
