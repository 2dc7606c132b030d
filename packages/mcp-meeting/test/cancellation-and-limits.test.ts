/**
 * What a host user notices at the edges of the long-job contract: cancelling a wait keeps the paid job
 * (and a later call resumes it), and a recording over the platform's upload limit is refused before upload.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, requestsMatching, startHarness } from './support/harness.js';

describe('summarize_meeting at the edges', () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('stops waiting at once when the client cancels, keeps the job recorded, and resumes it next time', async () => {
    // Slow sandbox: the job runs for minutes, so only the client's cancellation can end the call early.
    harness = await startHarness({ speed: 0.5 });
    const file = await harness.writeRecording('cancelled-wait.wav');
    const controller = new AbortController();
    let firstJobProgress: (() => void) | undefined;
    const jobStarted = new Promise<void>((resolve) => {
      firstJobProgress = resolve;
    });
    const call = harness.call(
      'summarize_meeting',
      { path: file, sourceLanguage: 'en', targetLanguage: 'de', waitSeconds: 50 },
      {
        signal: controller.signal,
        onprogress: (progress) => {
          // Upload progress stays within 0..1; the job's own progress starts once it is created.
          if (!String(progress.message ?? '').startsWith('UPLOADING')) firstJobProgress?.();
        },
      },
    );
    await jobStarted;
    const cancelledAt = Date.now();
    controller.abort();
    await expect(call).rejects.toThrow();
    // At once: within a busy machine's delays, where the job (and the wait) would go on for minutes.
    expect(Date.now() - cancelledAt).toBeLessThan(5_000);

    const jobs = await harness.call('list_jobs', {});
    expect(jobs.isError, jobs.text).toBe(false);
    const recorded = (jobs.structured.jobs as { jobId: string }[]) ?? [];
    expect(recorded).toHaveLength(1);

    const again = await harness.call('summarize_meeting', {
      path: file,
      sourceLanguage: 'en',
      targetLanguage: 'de',
      waitSeconds: 0,
    });
    expect(again.isError, again.text).toBe(false);
    expect(again.structured).toMatchObject({ resumed: true, done: false, jobId: recorded[0]?.jobId });
    expect(Object.values(harness.sandbox.control.counters().jobsCreated)).toEqual([1]);
    expect(requestsMatching(harness.sandbox, 'POST /api/conference-summary/v1/uploads')).toBe(1);
  });

  it('refuses a recording over maxUploadBytes before uploading, naming the limit', async () => {
    harness = await startHarness({ config: { limits: { maxUploadBytes: 50_000 } } });
    const file = await harness.writeRecording('too-big.wav');
    const result = await harness.call('summarize_meeting', { path: file, waitSeconds: 0 });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('over the upload limit of 48.8 KB');
    expect(result.text).not.toContain('(file:');
    expect(requestsMatching(harness.sandbox, 'POST /api/conference-summary/v1/uploads')).toBe(0);
    expect(Object.values(harness.sandbox.control.counters().jobsCreated)).toEqual([]);
  });
});
