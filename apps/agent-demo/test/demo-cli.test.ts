/**
 * The demo as a newcomer runs it: the built CLI on the embedded sandbox, servers spawned over stdio.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SAMPLE_READING_TEXT } from '@polymodal/sandbox';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answerHeadingsOf, assertBuilt, expectedHeadingsOf, parseEvents, runDemo } from './run-demo.js';

let outputDir: string;

beforeAll(assertBuilt);
afterEach(async () => {
  if (outputDir) await rm(outputDir, { recursive: true, force: true });
});

describe('pnpm demo on the embedded sandbox', () => {
  it("runs the meeting scenario from the servers' prompts: minutes, exports, Thai speech, the reading scored and the Thai sample transcribed over stdio", async () => {
    outputDir = await mkdtemp(path.join(os.tmpdir(), 'demo-test-'));
    const run = await runDemo(['--json'], {
      POLYMODAL_OUTPUT_DIR: outputDir,
      POLYMODAL_SANDBOX_SPEED: '100',
    });
    expect(run.code, run.stderr).toBe(0);
    const trace = { events: parseEvents(run.stdout) };
    const event = <T>(type: string) =>
      trace.events.find((candidate) => candidate.type === type) as unknown as T;

    const platform = event<unknown>('platform');
    expect(platform).toMatchObject({ embedded: true });

    // The task as a host builds it: three prompts fetched from the servers that offer them (their text is
    // the servers'), and the demo's one line of words for what no prompt asks.
    const media = path.join(outputDir, 'media');
    const recording = path.join(media, 'sample-meeting.wav');
    const readingPath = path.join(media, 'sample-reading.wav');
    const speechPath = path.join(media, 'sample-thai-speech.wav');
    const task = event<{ text: string; parts: unknown[] }>('task');
    expect(task).toMatchObject({
      scenario: 'meeting',
      parts: [
        {
          prompt: 'meeting_minutes',
          server: 'meeting',
          arguments: { recording, language: 'en', minutesLanguage: 'th', title: 'Weekly product sync' },
        },
        { words: expect.stringContaining('synthesise the action items as speech in Thai') },
        {
          prompt: 'check_thai_reading',
          server: 'speech',
          arguments: { recording: readingPath, referenceText: SAMPLE_READING_TEXT },
        },
        { prompt: 'thai_transcript', server: 'speech', arguments: { recording: speechPath } },
      ],
    });
    expect(task.parts).toHaveLength(4);
    const summarizeArguments = {
      path: recording,
      sourceLanguage: 'en',
      targetLanguage: 'th',
      title: 'Weekly product sync',
    };
    const scoreArguments = { studentAudioPath: readingPath, referenceText: SAMPLE_READING_TEXT };
    for (const step of [
      `1. Call summarize_meeting with ${JSON.stringify(summarizeArguments)}`,
      `1. Call score_reading with ${JSON.stringify(scoreArguments)}`,
      `1. Call transcribe_thai with ${JSON.stringify({ audioPath: speechPath })}`,
    ]) {
      expect(task.text).toContain(step);
    }

    // The calls the prompts name, in the order written, with their arguments; between them, the waits on
    // unfinished jobs and what the line of words asks (the other exports and the action items spoken).
    const waits = ['get_meeting', 'get_speech', 'get_reading_score'];
    const calls = trace.events.filter(
      (candidate) => candidate.type === 'call' && !waits.includes(String(candidate.tool)),
    );
    expect(calls.map((call) => call.tool)).toEqual([
      'summarize_meeting',
      'export_meeting',
      'export_meeting',
      'export_meeting',
      'synthesize_speech',
      'score_reading',
      'transcribe_thai',
    ]);
    const jobId = (
      trace.events.find((candidate) => candidate.type === 'result' && candidate.tool === 'summarize_meeting')
        ?.structured as { jobId?: string } | undefined
    )?.jobId;
    expect(calls.map((call) => call.arguments)).toEqual([
      summarizeArguments,
      { jobId, what: 'summary', format: 'md' },
      { jobId, what: 'transcript', format: 'srt' },
      { jobId, what: 'translation', format: 'vtt' },
      expect.objectContaining({ language: 'th' }),
      scoreArguments,
      { audioPath: speechPath },
    ]);
    const summarized = trace.events.find(
      (event) => event.type === 'result' && event.tool === 'summarize_meeting',
    );
    expect(summarized).toMatchObject({ ok: true, structured: { status: 'COMPLETED', done: true } });

    const speechCall = trace.events.find(
      (candidate) => candidate.type === 'call' && candidate.tool === 'synthesize_speech',
    );
    expect(speechCall).toMatchObject({ arguments: { language: 'th' } });
    // The action items, translated: "Prepare the rollback plan and share it by Friday".
    expect(JSON.stringify(speechCall)).toContain('เตรียมแผนย้อนกลับและส่งให้ภายในวันศุกร์');
    const speech = trace.events.find(
      (candidate) => candidate.type === 'result' && candidate.tool === 'synthesize_speech',
    ) as { ok: boolean; structured: { savedPath: string; done: boolean } } | undefined;
    expect(speech).toMatchObject({ ok: true, structured: { done: true } });
    expect(path.dirname(speech?.structured.savedPath ?? '')).toBe(outputDir);
    expect((await readFile(speech?.structured.savedPath as string)).subarray(8, 12).toString('latin1')).toBe(
      'WAVE',
    );

    const reading = trace.events.find(
      (candidate) => candidate.type === 'result' && candidate.tool === 'score_reading',
    );
    expect(reading).toMatchObject({ ok: true, structured: { correctWords: 6, referenceWords: 7 } });
    expect(reading?.brief).toMatch(/^6 of 7 words correct; practise: อ่าน/);
    const transcribed = trace.events.find(
      (candidate) => candidate.type === 'result' && candidate.tool === 'transcribe_thai',
    );
    expect(transcribed).toMatchObject({ ok: true, structured: { text: 'สวัสดีครับ ประชุมเริ่มตอนเก้าโมง' } });
    const captions = trace.events.filter(
      (candidate) => candidate.type === 'progress' && candidate.tool === 'transcribe_thai',
    );
    expect(captions.length).toBeGreaterThan(0);

    const files = event<{ paths: string[] }>('files');
    const summaryPath = files.paths.find((file) => file.endsWith('.md'));
    expect(summaryPath && path.dirname(summaryPath)).toBe(outputDir);
    const markdown = await readFile(summaryPath as string, 'utf8');
    expect(markdown).toMatch(/Decisions/i);
    expect(markdown).toMatch(/Action items/i);
    const srt = await readFile(files.paths.find((file) => file.endsWith('.srt')) as string, 'utf8');
    expect(srt).toMatch(/^1\r?\n00:00:\d\d,\d{3} --> 00:00:\d\d,\d{3}/);

    expect(files.paths).toContain(speech?.structured.savedPath);
    const answer = event<{ text: string }>('answer');
    // The meeting, titled as the demo asked through the prompt.
    expect(answer.text).toMatch(/- summarize_meeting: Meeting job mtg_\w+ "Weekly product sync" COMPLETED\./);
    expect(answer.text).toMatch(/Action items:\n- .+\(Speaker \d/);
    // Each part labelled by the tool it comes from: the reading's practice and the Thai speech's words, no
    // flashcards (none were made).
    expect(answerHeadingsOf(trace.events)).toEqual(expectedHeadingsOf(trace.events));
    expect(answer.text).toContain('What the student should practise:\n- อ่าน');
    expect(answer.text).toContain('What the Thai speech says:\n- สวัสดีครับ ประชุมเริ่มตอนเก้าโมง');
    const model = event<{ model: string }>('model');
    expect(model).toMatchObject({ model: 'sandbox-planner-1', source: 'sandbox' });
    // One event per line, numbered in the order they happened, each step announced before its call.
    expect(trace.events.map((candidate) => candidate.seq)).toEqual(trace.events.map((_, index) => index + 1));
    const kinds = trace.events.map((candidate) => candidate.type);
    expect(kinds.slice(0, 7)).toEqual(['platform', 'model', 'server', 'server', 'server', 'task', 'step']);
    // Each server connection negotiated the 2026-07-28 protocol (server/discover), not 2025's initialize.
    expect(trace.events.filter((candidate) => candidate.type === 'server')).toEqual(
      ['meeting', 'media', 'speech'].map((server) =>
        expect.objectContaining({ server, protocolVersion: '2026-07-28', era: 'modern' }),
      ),
    );
    expect(kinds.at(-1)).toBe('files');
    expect(kinds.filter((kind) => kind === 'step').length).toBeGreaterThan(
      kinds.filter((kind) => kind === 'call').length,
    );
  });

  it('takes a task in words and does only what it asks', async () => {
    outputDir = await mkdtemp(path.join(os.tmpdir(), 'demo-test-'));
    const recording = path.join(outputDir, 'media', 'sample-meeting.wav');
    const task = `Summarise the meeting at ${recording} in French and export the summary as Markdown.`;
    const run = await runDemo(['--json', task], {
      POLYMODAL_OUTPUT_DIR: outputDir,
      POLYMODAL_SANDBOX_SPEED: '100',
    });
    expect(run.code, run.stderr).toBe(0);
    const trace = { events: parseEvents(run.stdout) };
    const calls = trace.events.filter((event) => event.type === 'call');
    expect(calls.map((event) => event.tool)).toEqual(['summarize_meeting', 'export_meeting']);
    expect(calls[0]).toMatchObject({ arguments: { targetLanguage: 'fr' } });
    expect(trace.events.find((event) => event.type === 'task')).toMatchObject({ text: task });
  });

  it('prints plain lines (no escapes, no carriage returns) into a pipe, and colour only when forced', async () => {
    outputDir = await mkdtemp(path.join(os.tmpdir(), 'demo-test-'));
    const recording = path.join(outputDir, 'media', 'sample-meeting.wav');
    const task = `Summarise the meeting at ${recording} in French and export the summary as Markdown.`;
    const plain = await runDemo([task], { POLYMODAL_OUTPUT_DIR: outputDir, POLYMODAL_SANDBOX_SPEED: '100' });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/▸ meeting · summarize_meeting/);
    expect(plain.stdout).toMatch(/✓ .+\(\d+\.\d s\)/);
    expect(plain.stdout).toContain('Other files');
    expect(plain.stdout).not.toContain('\x1b[');
    expect(plain.stdout).not.toContain('\r');
    // The negotiated protocol is a detail for --json and --verbose, not the narration.
    expect(plain.stdout).not.toContain('2026-07-28');

    // The same kind of run with FORCE_COLOR: the check above would have seen these escapes.
    const forced = await runDemo(['Say hello.'], { POLYMODAL_OUTPUT_DIR: outputDir, FORCE_COLOR: '1' });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toContain('\x1b[1mOther files\x1b[0m');
    expect(forced.stdout).not.toContain('\r');
  });

  it('refuses a scenario it does not know, and a scenario beside a task in words', async () => {
    outputDir = await mkdtemp(path.join(os.tmpdir(), 'demo-test-'));
    // `pnpm demo -- --scenario …` hands the CLI a leading `--`: the option is still read as one.
    const unknown = await runDemo(['--', '--scenario', 'karaoke'], { POLYMODAL_OUTPUT_DIR: outputDir });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('--scenario must be one of meeting, video, flashcards');
    const both = await runDemo(['--scenario', 'video', 'Say hello.'], { POLYMODAL_OUTPUT_DIR: outputDir });
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('either --scenario or a task in words');
  });

  it('refuses a base URL without a key, naming both variables', async () => {
    outputDir = await mkdtemp(path.join(os.tmpdir(), 'demo-test-'));
    const run = await runDemo([], {
      POLYMODAL_OUTPUT_DIR: outputDir,
      POLYMODAL_BASE_URL: 'http://127.0.0.1:9',
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('POLYMODAL_API_KEY');
  });
});
