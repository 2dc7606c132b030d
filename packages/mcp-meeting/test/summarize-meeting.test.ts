import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { meetingCost } from '@polymodal/core/constants';
import { layoutMeetingScript } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, SHORT_SCRIPT, startHarness } from './support/harness.js';

describe('summarize_meeting', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ speed: 100 });
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('lists every tool with input and output schemas and annotations', async () => {
    const { tools } = await harness.client.listTools();
    const names = tools.map((tool) => tool.name).sort();
    expect(names).toEqual(
      [
        'cancel_meeting',
        'delete_meeting',
        'export_meeting',
        'get_meeting',
        'list_jobs',
        'list_meetings',
        'resummarize_meeting',
        'retranslate_meeting',
        'retry_meeting',
        'summarize_meeting',
        'update_meeting',
      ].sort(),
    );
    for (const tool of tools) {
      expect(tool.outputSchema, tool.name).toBeDefined();
      expect(tool.annotations?.title, tool.name).toBeTruthy();
      expect(typeof tool.annotations?.readOnlyHint, tool.name).toBe('boolean');
      expect(typeof tool.annotations?.destructiveHint, tool.name).toBe('boolean');
      expect(typeof tool.annotations?.idempotentHint, tool.name).toBe('boolean');
      expect(typeof tool.annotations?.openWorldHint, tool.name).toBe('boolean');
    }
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName.summarize_meeting?.annotations).toMatchObject({
      readOnlyHint: false,
      idempotentHint: false,
    });
    expect(byName.summarize_meeting?.description).toMatch(/4 credits per started minute/);
    expect(byName.get_meeting?.annotations?.readOnlyHint).toBe(true);
    expect(byName.list_meetings?.annotations?.readOnlyHint).toBe(true);
    expect(byName.delete_meeting?.annotations?.destructiveHint).toBe(true);
    // Both replace the job's current result, which cannot be fetched again afterwards.
    expect(byName.resummarize_meeting?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
    expect(byName.retranslate_meeting?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
    // It reads the platform and replaces a same-named file in the output directory.
    expect(byName.export_meeting?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      openWorldHint: true,
    });
  });

  it('summarizes a recording: summary items reference real transcript segments', async () => {
    const file = await harness.writeRecording('happy.wav');
    const result = await harness.call('summarize_meeting', {
      path: file,
      sourceLanguage: 'en',
      targetLanguage: 'fr',
      title: 'Launch sync',
      waitSeconds: 20,
    });
    expect(result.isError, result.text).toBe(false);
    const structured = result.structured as {
      jobId: string;
      status: string;
      done: boolean;
      resumed: boolean;
      title: string;
      counts: { segments: number; actionItems: number; decisions: number; openQuestions: number };
      summary: {
        actionItems: { segmentIds: string[]; owner: string | null }[];
        decisions: { segmentIds: string[] }[];
      };
      next: string;
    };
    expect(structured).toMatchObject({
      status: 'COMPLETED',
      done: true,
      resumed: false,
      title: 'Launch sync',
    });
    expect(structured.counts.segments).toBe(SHORT_SCRIPT.length);
    expect(structured.counts.actionItems).toBeGreaterThan(0);
    expect(structured.counts.decisions).toBeGreaterThan(0);
    expect(structured.next).toMatch(/get_meeting/);
    expect(result.text).toMatch(/COMPLETED/);

    const transcript = await harness.call('get_meeting', {
      jobId: structured.jobId,
      include: ['transcript'],
      maxSegments: 200,
    });
    const ids = new Set(
      (transcript.structured.transcript as { segments: { id: string }[] }).segments.map(
        (segment) => segment.id,
      ),
    );
    const referenced = [...structured.summary.actionItems, ...structured.summary.decisions].flatMap(
      (item) => item.segmentIds,
    );
    expect(referenced.length).toBeGreaterThan(0);
    for (const id of referenced) expect(ids.has(id), id).toBe(true);
    expect(structured.summary.actionItems.every((item) => typeof item.owner === 'string')).toBe(true);
  });

  it('keeps a non-ASCII file name as the recording title (UTF-8 filename=, never filename*)', async () => {
    const file = await harness.writeRecording('réunion d’équipe.wav');
    const result = await harness.call('summarize_meeting', { path: file, waitSeconds: 0 });
    expect(result.isError, result.text).toBe(false);
    const job = await harness.call('get_meeting', { jobId: result.structured.jobId, waitSeconds: 5 });
    expect(job.structured.title).toBe('réunion d’équipe');
  });

  it('returns a job handle when the job outlives waitSeconds, and get_meeting finishes the wait', async () => {
    const file = await harness.writeRecording('long.wav');
    // Held: the job stays running however slow the machine is (at speed 100 it ends within a fifth of a
    // second of sandbox time), until the clock is released.
    harness.sandbox.control.holdClock();
    const first = await harness.call('summarize_meeting', { path: file, waitSeconds: 0 });
    harness.sandbox.control.releaseClock();
    expect(first.isError, first.text).toBe(false);
    expect(first.structured).toMatchObject({ done: false });
    const jobId = first.structured.jobId as string;
    expect(first.structured.next).toBe(
      `call get_meeting with jobId=${jobId} (waitSeconds up to 50) to keep waiting`,
    );
    expect(first.text).toContain('get_meeting');

    const second = await harness.call('get_meeting', { jobId, waitSeconds: 20, include: ['summary'] });
    expect(second.isError, second.text).toBe(false);
    expect(second.structured).toMatchObject({ jobId, status: 'COMPLETED', done: true, progress: 100 });
    expect(second.structured.summary).toBeDefined();
  });

  it('resumes the recorded job when the same file is summarized again (one upload, one job)', async () => {
    const file = await harness.writeRecording('resume.wav');
    const before = harness.sandbox.control.counters();
    const first = await harness.call('summarize_meeting', { path: file, waitSeconds: 0 });
    const second = await harness.call('summarize_meeting', { path: file, waitSeconds: 0 });
    const after = harness.sandbox.control.counters();
    expect(first.structured.resumed).toBe(false);
    expect(second.structured.resumed).toBe(true);
    expect(second.structured.jobId).toBe(first.structured.jobId);
    expect(second.text).toMatch(/Resumed/);
    expect((after.jobsCreated[harness.userId] ?? 0) - (before.jobsCreated[harness.userId] ?? 0)).toBe(1);
    expect((after.uploads[harness.userId] ?? 0) - (before.uploads[harness.userId] ?? 0)).toBe(1);

    const forced = await harness.call('summarize_meeting', { path: file, waitSeconds: 0, force: true });
    expect(forced.structured.resumed).toBe(false);
    expect(forced.structured.jobId).not.toBe(first.structured.jobId);
  });

  it('sends progress notifications when the client asks for them', async () => {
    // Held, and moved 150 ms after each status read the sandbox receives (TRANSCRIBING lasts 450 ms at speed
    // 15): the job advances by reads, not by real time, so no phase passes between two reads however slowly
    // they come (with a running clock a busy machine could read before and after TRANSCRIBING only).
    const slow = await startHarness({ speed: 15, pollIntervalMs: 25, clock: 'held' });
    let answered = false;
    const stepping = (async () => {
      let seen = 0;
      while (!answered) {
        const reads = slow.sandbox.control.requests({ method: 'GET', path: '/jobs/[^/]+$' }).length;
        if (reads > seen) {
          seen = reads;
          slow.sandbox.control.advance(150);
        }
        await delay(10);
      }
    })();
    try {
      const file = await slow.writeRecording('progress.wav');
      const updates: { progress: number; total?: number; message?: string }[] = [];
      const result = await slow
        .call(
          'summarize_meeting',
          { path: file, waitSeconds: 30 },
          { onprogress: (update) => updates.push(update), resetTimeoutOnProgress: true, timeout: 30_000 },
        )
        .finally(() => {
          answered = true;
        });
      expect(result.structured.status, result.text).toBe('COMPLETED');
      expect(updates.length).toBeGreaterThanOrEqual(3);
      for (let index = 1; index < updates.length; index++) {
        expect(updates[index]?.progress).toBeGreaterThan(updates[index - 1]?.progress as number);
      }
      expect(updates.every((update) => update.total === 100)).toBe(true);
      expect(updates.some((update) => /^TRANSCRIBING \d+%$/.test(update.message ?? ''))).toBe(true);
      expect(updates.at(-1)).toMatchObject({ progress: 100, message: 'COMPLETED 100%' });
    } finally {
      answered = true;
      await stepping;
      await slow.close();
    }
  });

  it('402 names what the recording costs and creates no job', async () => {
    const file = await harness.writeRecording('expensive.wav');
    const credits = harness.sandbox.control.getCredits(harness.userId);
    const before = harness.sandbox.control.counters().jobsCreated[harness.userId] ?? 0;
    harness.sandbox.control.setCredits(harness.userId, 0);
    try {
      const result = await harness.call('summarize_meeting', { path: file, waitSeconds: 0 });
      expect(result.isError).toBe(true);
      const duration = layoutMeetingScript(SHORT_SCRIPT).durationSeconds;
      const cost = meetingCost(duration, harness.sandbox.config.limits.minimumCredits);
      expect(result.text).toMatch(
        new RegExp(`^HTTP 402: not enough credits; this recording costs ${cost} credits`),
      );
      expect(harness.sandbox.control.counters().jobsCreated[harness.userId] ?? 0).toBe(before);
    } finally {
      harness.sandbox.control.setCredits(harness.userId, credits);
    }
  });

  it('refuses a path outside the allowed directories before any upload', async () => {
    const outside = await harness.writeRecording('outside.wav', {
      dir: path.join(harness.root, 'elsewhere'),
    });
    const sibling = await harness.writeRecording('x.wav', { dir: `${harness.mediaDir}_evil` });
    const before = harness.sandbox.control.counters().uploads[harness.userId] ?? 0;
    for (const file of [outside, sibling, path.join(harness.mediaDir, '..', 'elsewhere', 'outside.wav')]) {
      const result = await harness.call('summarize_meeting', { path: file, waitSeconds: 0 });
      expect(result.isError, file).toBe(true);
      expect(result.text).toMatch(/POLYMODAL_ALLOWED_DIRS|allowed/);
    }
    expect(harness.sandbox.control.counters().uploads[harness.userId] ?? 0).toBe(before);
  });

  it('refuses invalid options and non-recordings before any upload', async () => {
    const file = await harness.writeRecording('options.wav');
    const before = harness.sandbox.control.counters().uploads[harness.userId] ?? 0;
    const speakers = await harness.call('summarize_meeting', {
      path: file,
      minSpeakers: 5,
      maxSpeakers: 2,
      waitSeconds: 0,
    });
    expect(speakers.isError).toBe(true);
    expect(speakers.text).toMatch(/^invalid input: .*minSpeakers/);
    const missing = await harness.call('summarize_meeting', {
      path: path.join(harness.mediaDir, 'nope.wav'),
    });
    expect(missing.isError).toBe(true);
    const badLanguage = await harness.call('summarize_meeting', { path: file, targetLanguage: 'auto' });
    expect(badLanguage.isError).toBe(true);
    expect(harness.sandbox.control.counters().uploads[harness.userId] ?? 0).toBe(before);
  });

  it('reports a failed job with its errorMessage and the way to retry, without charging', async () => {
    const file = await harness.writeRecording('broken.wav', { fail: 'the audio track is unreadable' });
    const credits = harness.sandbox.control.getCredits(harness.userId);
    const result = await harness.call('summarize_meeting', { path: file, waitSeconds: 20 });
    expect(result.isError).toBe(false);
    expect(result.structured).toMatchObject({
      status: 'FAILED',
      done: true,
      errorMessage: 'the audio track is unreadable',
      creditsCharged: false,
    });
    expect(result.structured.next).toMatch(/retry_meeting/);
    expect(result.text).toContain('the audio track is unreadable');
    expect(harness.sandbox.control.getCredits(harness.userId)).toBe(credits);
  });
});

describe('summarize_meeting with a bad key', () => {
  it('says to check POLYMODAL_API_KEY and never shows the key', async () => {
    const harness = await startHarness({ apiKey: (sandbox) => sandbox.keys.revoked as string });
    try {
      const result = await harness.call('list_meetings');
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/^HTTP 401: .*POLYMODAL_API_KEY/);
      expect(result.text).not.toContain(harness.sandbox.keys.revoked as string);
    } finally {
      await harness.close();
    }
  });
});
