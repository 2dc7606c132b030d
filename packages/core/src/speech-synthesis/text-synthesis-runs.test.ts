import { describe, expect, it } from 'vitest';
import type { TextSynthesisProgress } from '../views/speech-job.js';
import { type SettledSpeechText, type SpeechTextJob, SpeechTextRuns } from './text-synthesis-runs.js';

const OUTCOME = { savedPath: '/out/a.wav', sizeBytes: 44, durationSeconds: 1, parts: [] };

/** Resolves once the job has stopped. */
function stopped(job: SpeechTextJob): Promise<void> {
  return new Promise((resolve) => {
    if (job.state !== 'running') resolve();
    const stop = job.onChange(() => {
      if (job.state !== 'running') {
        stop();
        resolve();
      }
    });
  });
}

describe('SpeechTextRuns', () => {
  it('joins a running job, and records how it ended before it shows it', async () => {
    const runs = new SpeechTextRuns();
    const recorded: SettledSpeechText[] = [];
    let finish: (() => void) | undefined;
    let report: ((progress: TextSynthesisProgress) => void) | undefined;
    const job = runs.start(
      'speech_1',
      (onProgress) => {
        report = onProgress;
        return new Promise((resolve) => {
          finish = () => resolve(OUTCOME);
        });
      },
      async (settled) => {
        expect(job.state).toBe('running');
        recorded.push(settled);
      },
    );
    const seen: number[] = [];
    job.onChange(() => seen.push(job.progress.finished));
    report?.({ parts: 2, finished: 1, queued: 0, submitted: 2 });
    expect(
      runs.start(
        'speech_1',
        () => Promise.reject(new Error('not run')),
        async () => undefined,
      ),
    ).toBe(job);
    finish?.();
    await stopped(job);
    expect(job.state).toBe('done');
    expect(job.outcome).toEqual(OUTCOME);
    expect(recorded).toEqual([{ id: 'speech_1', progress: job.progress, outcome: OUTCOME, state: 'done' }]);
    expect(seen).toEqual([1, 1]);
  });

  it('stops sending once its last follower is cancelled, and starts again on the next call', async () => {
    const runs = new SpeechTextRuns();
    const job = runs.start(
      'speech_2',
      (_report, signal) =>
        new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
      async () => undefined,
    );
    const first = new AbortController();
    const second = new AbortController();
    job.follow(first.signal);
    const leave = job.follow(second.signal);
    first.abort(new Error('caller left'));
    expect(job.state).toBe('running');
    leave();
    const third = new AbortController();
    job.follow(third.signal);
    third.abort(new Error('last caller left'));
    await stopped(job);
    expect(job.state).toBe('cancelled');
    const again = runs.start(
      'speech_2',
      async () => OUTCOME,
      async () => undefined,
    );
    expect(again).not.toBe(job);
  });
});
