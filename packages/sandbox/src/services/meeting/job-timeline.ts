/**
 * When a meeting job is in which state. No timers: a job stores when its current run started and the
 * planned phases, and its state is computed from the sandbox clock on every look, so `advance()` moves
 * jobs forward instantly and idle jobs cost nothing.
 */
import type { MeetingState } from '@polymodal/core';

export type Artifact = 'transcript' | 'translation' | 'summary';
export type Artifacts = Record<Artifact, boolean>;
export type RunKind = 'process' | 'resummarize' | 'retranslate';

export interface Phase {
  state: MeetingState;
  durationMs: number;
  /** What exists once this phase is over. */
  produces?: Artifact;
}

export interface JobRun {
  kind: RunKind;
  startedAt: number;
  phases: Phase[];
  /** Artifacts that exist during the whole run (kept from before it). */
  base: Artifacts;
  /** Processing fails when the named phase ends. */
  failure?: { afterState: MeetingState; message: string };
}

export type FinalStatus = 'COMPLETED' | 'FAILED' | 'CANCELLED';

export interface JobMoment {
  status: MeetingState;
  progress: number;
  artifacts: Artifacts;
  errorMessage: string | null;
  /** Set when the run is over at this moment: its final status and the sandbox time it ended. */
  finished?: { status: 'COMPLETED' | 'FAILED'; at: number };
}

export const NO_ARTIFACTS: Artifacts = { transcript: false, translation: false, summary: false };

/** Nominal phase durations at speed 1, in seconds, for a recording of `d` seconds. */
const NOMINAL_SECONDS: Partial<Record<MeetingState, (d: number) => number>> = {
  PENDING: () => 1.5,
  EXTRACTING_AUDIO: (d) => 2 + 0.02 * d,
  CLEANING_AUDIO: (d) => 3 + 0.05 * d,
  TRANSCRIBING: (d) => 5 + 0.15 * d,
  TRANSCRIPT_READY: () => 1,
  TRANSLATING: (d) => 3 + 0.05 * d,
  SUMMARIZING: (d) => 4 + 0.03 * d,
};

const PRODUCES: Partial<Record<MeetingState, Artifact>> = {
  TRANSCRIBING: 'transcript',
  TRANSLATING: 'translation',
  SUMMARIZING: 'summary',
};

/** Builds the phases of a run: states in order, each lasting its nominal time divided by `speed`. */
export function planPhases(states: readonly MeetingState[], durationSeconds: number, speed: number): Phase[] {
  return states.map((state) => {
    const nominal = NOMINAL_SECONDS[state]?.(durationSeconds) ?? 1;
    const produces = PRODUCES[state];
    return {
      state,
      durationMs: Math.max(1, Math.round((nominal * 1000) / speed)),
      ...(produces ? { produces } : {}),
    };
  });
}

/** States of a full processing run (CLEANING_AUDIO only with noise reduction). */
export function processStates(noiseReduction: boolean): MeetingState[] {
  return [
    'PENDING',
    'EXTRACTING_AUDIO',
    ...(noiseReduction ? (['CLEANING_AUDIO'] as const) : []),
    'TRANSCRIBING',
    'TRANSCRIPT_READY',
    'TRANSLATING',
    'SUMMARIZING',
  ];
}

/** Where a run is at sandbox time `now`. Progress rises from 0 to 99 through the run, 100 on completion. */
export function runMoment(run: JobRun, now: number): JobMoment {
  const total = run.phases.reduce((sum, phase) => sum + phase.durationMs, 0);
  const elapsed = Math.max(0, now - run.startedAt);
  const artifacts: Artifacts = { ...run.base };
  let cursor = 0;
  for (const phase of run.phases) {
    const end = cursor + phase.durationMs;
    if (elapsed < end) {
      return {
        status: phase.state,
        progress: Math.min(99, Math.floor((99 * elapsed) / total)),
        artifacts,
        errorMessage: null,
      };
    }
    if (run.failure?.afterState === phase.state) {
      return {
        status: 'FAILED',
        progress: Math.min(99, Math.floor((99 * end) / total)),
        artifacts,
        errorMessage: run.failure.message,
        finished: { status: 'FAILED', at: run.startedAt + end },
      };
    }
    if (phase.produces) artifacts[phase.produces] = true;
    cursor = end;
  }
  return {
    status: 'COMPLETED',
    progress: 100,
    artifacts,
    errorMessage: null,
    finished: { status: 'COMPLETED', at: run.startedAt + total },
  };
}
