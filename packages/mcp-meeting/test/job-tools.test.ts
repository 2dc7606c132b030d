import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, requestsMatching, SHORT_SCRIPT, startHarness } from './support/harness.js';

interface Segment {
  index: number;
  id: string;
  start: number;
  end: number;
  speakerId: string;
  speaker: string;
  text: string;
}
interface Page {
  total: number;
  matched: number;
  returned: number;
  nextSegment: number | null;
  segments: Segment[];
}

describe('meeting job tools', () => {
  let harness: Harness;
  let jobId: string;

  beforeAll(async () => {
    harness = await startHarness({ speed: 100 });
    const file = await harness.writeRecording('sync.wav');
    const result = await harness.call('summarize_meeting', {
      path: file,
      sourceLanguage: 'en',
      targetLanguage: 'de',
      title: 'Weekly sync',
      waitSeconds: 20,
    });
    expect(result.structured.status, result.text).toBe('COMPLETED');
    jobId = result.structured.jobId as string;
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('get_meeting pages the transcript with nextSegment, by index or by time', async () => {
    const first = await harness.call('get_meeting', { jobId, include: ['transcript'], maxSegments: 2 });
    expect(first.isError, first.text).toBe(false);
    const page = first.structured.transcript as Page;
    expect(page).toMatchObject({ total: SHORT_SCRIPT.length, returned: 2, nextSegment: 3 });
    expect(page.segments.map((segment) => segment.index)).toEqual([1, 2]);
    expect(first.structured.summary).toBeUndefined();
    expect(first.structured.next).toMatch(/segmentRange.from=3/);
    expect(first.text).toContain(page.segments[0]?.text as string);

    const second = await harness.call('get_meeting', {
      jobId,
      include: ['transcript'],
      segmentRange: { from: 3 },
      maxSegments: 200,
    });
    const rest = second.structured.transcript as Page;
    expect(rest.segments.map((segment) => segment.index)).toEqual([3, 4, 5]);
    expect(rest.nextSegment).toBeNull();

    const at = rest.segments[0] as Segment;
    const byTime = await harness.call('get_meeting', {
      jobId,
      include: ['transcript'],
      timeRange: { startSeconds: at.start + 0.01, endSeconds: at.end - 0.01 },
    });
    expect((byTime.structured.transcript as Page).segments.map((segment) => segment.id)).toEqual([at.id]);

    const both = await harness.call('get_meeting', {
      jobId,
      segmentRange: { from: 1 },
      timeRange: { startSeconds: 0 },
    });
    expect(both.isError).toBe(true);
    expect(both.text).toMatch(/not both/);

    const tooMany = await harness.call('get_meeting', { jobId, maxSegments: 500 });
    expect(tooMany.isError).toBe(true);
  });

  it('get_meeting returns the translation with the same ids, times and speakers', async () => {
    const result = await harness.call('get_meeting', { jobId, include: ['transcript', 'translation'] });
    const transcript = result.structured.transcript as Page;
    const translation = result.structured.translation as Page;
    expect(
      translation.segments.map(({ id, start, end, speakerId }) => ({ id, start, end, speakerId })),
    ).toEqual(transcript.segments.map(({ id, start, end, speakerId }) => ({ id, start, end, speakerId })));
    expect(result.structured).toMatchObject({ credits: expect.any(Number), creditsCharged: true });
  });

  it('update_meeting refuses unknown speaker ids before any PATCH, naming the valid ones', async () => {
    const patches = requestsMatching(harness.sandbox, 'PATCH ');
    const result = await harness.call('update_meeting', {
      jobId,
      speakerNames: { S1: 'Alice', S9: 'Nobody' },
    });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/unknown speaker id\(s\) S9; the transcript of job .* has S1, S2, S3/);
    expect(requestsMatching(harness.sandbox, 'PATCH ')).toBe(patches);
  });

  it('update_meeting names speakers; names then appear in get_meeting and the summary owners', async () => {
    const result = await harness.call('update_meeting', {
      jobId,
      title: 'Weekly product sync',
      speakerNames: { S1: 'Alice', S2: 'Bob', S3: 'Carol' },
    });
    expect(result.isError, result.text).toBe(false);
    expect(result.structured).toMatchObject({
      title: 'Weekly product sync',
      speakerNames: { S1: 'Alice', S2: 'Bob', S3: 'Carol' },
    });
    const read = await harness.call('get_meeting', { jobId });
    const segments = (read.structured.transcript as Page).segments;
    expect(segments.map((segment) => segment.speaker)).toEqual(SHORT_SCRIPT.map((line) => line.speaker));
    const owners = (read.structured.summary as { actionItems: { owner: string }[] }).actionItems.map(
      (item) => item.owner,
    );
    expect(owners).toEqual(expect.arrayContaining(['Alice']));
    const empty = await harness.call('update_meeting', { jobId });
    expect(empty.isError).toBe(true);
  });

  it('export_meeting writes SRT, VTT and Markdown into the output dir and links them', async () => {
    const srt = await harness.call('export_meeting', { jobId, what: 'transcript', format: 'srt' });
    expect(srt.isError, srt.text).toBe(false);
    const srtPath = srt.structured.path as string;
    expect(path.dirname(srtPath)).toBe(await realOutputDir(harness));
    const srtText = await readFile(srtPath, 'utf8');
    expect(srtText).toMatch(
      /^1\n\d{2}:\d{2}:\d{2},\d{3} --> \d{2}:\d{2}:\d{2},\d{3}\nAlice: Welcome everyone/,
    );
    expect(srtText).toContain(`\n\n${SHORT_SCRIPT.length}\n`);
    const link = srt.raw.content.find((item) => item.type === 'resource_link') as {
      uri: string;
      mimeType: string;
    };
    expect(link).toMatchObject({ mimeType: 'application/x-subrip' });
    expect(link.uri).toBe(new URL(`file://${srtPath}`).href);

    const vtt = await harness.call('export_meeting', {
      jobId,
      what: 'translation',
      format: 'vtt',
      fileName: 'sync-de',
    });
    expect(path.basename(vtt.structured.path as string)).toBe('sync-de.vtt');
    const vttText = await readFile(vtt.structured.path as string, 'utf8');
    expect(vttText).toMatch(/^WEBVTT\n\n\d{2}:\d{2}:\d{2}\.\d{3} --> \d{2}:\d{2}:\d{2}\.\d{3}\n<v Alice>/);

    const md = await harness.call('export_meeting', { jobId, what: 'summary', format: 'md' });
    const mdText = await readFile(md.structured.path as string, 'utf8');
    expect(mdText).toMatch(/^# Weekly product sync\n/);
    expect(mdText).toMatch(/## Action items\n\n- \[ \] .*owner: (Alice|Bob)/);

    const wrong = await harness.call('export_meeting', { jobId, what: 'summary', format: 'srt' });
    expect(wrong.isError).toBe(true);
    expect(wrong.text).toMatch(/md only/);

    const escaped = await harness.call('export_meeting', {
      jobId,
      what: 'transcript',
      format: 'md',
      fileName: '../../escape',
    });
    expect(escaped.isError, escaped.text).toBe(false);
    expect(path.dirname(escaped.structured.path as string)).toBe(await realOutputDir(harness));
    expect(
      (await readdir(path.dirname(escaped.structured.path as string))).some((name) => name.includes('.tmp')),
    ).toBe(false);
  });

  it('list_meetings shows the account recordings, the upload limit and pricing', async () => {
    const result = await harness.call('list_meetings');
    expect(result.isError, result.text).toBe(false);
    const meetings = result.structured.meetings as { id: string; status: string }[];
    expect(meetings.some((meeting) => meeting.id === jobId)).toBe(true);
    expect(result.structured.maxUploadBytes).toEqual(expect.any(Number));
    expect(result.structured.pricing).toMatchObject({ minimumCredits: expect.any(Number) });
  });

  it("list_jobs shows this installation's jobs with their last seen status", async () => {
    const result = await harness.call('list_jobs');
    const jobs = result.structured.jobs as { jobId: string; status: string }[];
    expect(jobs.find((job) => job.jobId === jobId)).toMatchObject({ status: 'COMPLETED' });
  });

  it('resummarize and retranslate run again without charging twice', async () => {
    const credits = harness.sandbox.control.getCredits(harness.userId);
    const resummarized = await harness.call('resummarize_meeting', { jobId, waitSeconds: 20 });
    expect(resummarized.isError, resummarized.text).toBe(false);
    expect(resummarized.structured).toMatchObject({ action: 'resummarize', status: 'COMPLETED', done: true });
    const retranslated = await harness.call('retranslate_meeting', {
      jobId,
      targetLanguage: 'ja',
      waitSeconds: 20,
    });
    expect(retranslated.structured).toMatchObject({ action: 'retranslate', status: 'COMPLETED', done: true });
    expect(harness.sandbox.control.getCredits(harness.userId)).toBe(credits);
  });

  it("another user's recording is reported as unknown (404), not shown", async () => {
    const other = await harness.connectAs(harness.sandbox.apiKey2);
    try {
      const result = await other.call('get_meeting', { jobId });
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/^HTTP 404: job .* is unknown or belongs to another user/);
      const deleted = await other.call('delete_meeting', { jobId, confirm: true });
      expect(deleted.isError).toBe(true);
    } finally {
      await other.close();
    }
    expect((await harness.call('get_meeting', { jobId })).structured.status).toBe('COMPLETED');
  });

  it('409 names the current state of the job', async () => {
    const cancel = await harness.call('cancel_meeting', { jobId });
    expect(cancel.isError).toBe(true);
    expect(cancel.text).toMatch(/^HTTP 409: job .* is in state COMPLETED/);
    const retry = await harness.call('retry_meeting', { jobId });
    expect(retry.isError).toBe(true);
    expect(retry.text).toContain('COMPLETED');
  });

  it('cancel_meeting stops a running job and retry_meeting restarts it', async () => {
    // A real-time sandbox, so the job is certainly still running when it is cancelled; its clock is then
    // advanced to finish the retried run at once.
    const slow = await startHarness({ speed: 1 });
    try {
      const file = await slow.writeRecording('to-cancel.wav');
      const started = await slow.call('summarize_meeting', { path: file, waitSeconds: 0 });
      const id = started.structured.jobId as string;
      const cancelled = await slow.call('cancel_meeting', { jobId: id });
      expect(cancelled.isError, cancelled.text).toBe(false);
      expect(cancelled.structured).toMatchObject({ action: 'cancel', status: 'CANCELLED', done: true });
      expect(cancelled.structured.next).toMatch(/retry_meeting/);
      const retried = await slow.call('retry_meeting', { jobId: id });
      expect(retried.isError, retried.text).toBe(false);
      expect(retried.structured).toMatchObject({ action: 'retry', done: false });
      expect(retried.structured.next).toMatch(/get_meeting/);
      slow.sandbox.control.advance(10 * 60 * 1000);
      // A read less than one poll interval old is reused, so the finished run shows on the next read.
      const finished = await slow.call('get_meeting', { jobId: id, include: ['summary'], waitSeconds: 5 });
      expect(finished.structured).toMatchObject({ status: 'COMPLETED', done: true });
    } finally {
      await slow.close();
    }
  });

  it('delete_meeting asks for confirmation, deletes, and the id is then unknown', async () => {
    const file = await harness.writeRecording('to-delete.wav');
    const done = await harness.call('summarize_meeting', { path: file, waitSeconds: 20 });
    const id = done.structured.jobId as string;
    const preview = await harness.call('delete_meeting', { jobId: id });
    expect(preview.structured).toMatchObject({ jobId: id, deleted: false, status: 'COMPLETED' });
    expect(preview.structured.next).toMatch(/confirm=true/);
    const deleted = await harness.call('delete_meeting', { jobId: id, confirm: true });
    expect(deleted.structured).toMatchObject({ jobId: id, deleted: true });
    const gone = await harness.call('get_meeting', { jobId: id });
    expect(gone.isError).toBe(true);
    expect(gone.text).toMatch(/^HTTP 404: job .* is unknown or belongs to another user/);

    // The same file is submitted anew rather than "resumed" onto the deleted job.
    const again = await harness.call('summarize_meeting', { path: file, waitSeconds: 0 });
    expect(again.structured.resumed).toBe(false);
    expect(again.structured.jobId).not.toBe(id);
  });
});

async function realOutputDir(harness: Harness): Promise<string> {
  const { realpath } = await import('node:fs/promises');
  return realpath(harness.outputDir);
}
