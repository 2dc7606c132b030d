/**
 * The video and flashcards scenarios end to end: the built CLI, its three servers over stdio and the
 * sandbox planner, against a sandbox this test owns with its clock held. Nothing moves until the test
 * advances the clock, which it does only after reading, from the --json stream, the line saying the job
 * was started (or, for a call that waits on its job itself, the line of the call, once the call has polled
 * its job) — so each run also proves that events arrive while the run is still going.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type RequestLogFilter, type Sandbox, startSandbox } from '@polymodal/sandbox';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  answerHeadingsOf,
  assertBuilt,
  type DemoEvent,
  expectedHeadingsOf,
  parseEvents,
  runDemo,
} from './run-demo.js';

let sandbox: Sandbox | undefined;
let outputDir: string | undefined;

beforeAll(assertBuilt);

afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  if (outputDir) await rm(outputDir, { recursive: true, force: true });
  outputDir = undefined;
});

/** Resolves once the sandbox has logged a request that `filter` matches. */
async function requestSeen(held: Sandbox, filter: RequestLogFilter): Promise<void> {
  while (held.control.requests(filter).length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
}

/**
 * Runs a scenario against the held sandbox and advances its clock by `advanceMs` once the line of the
 * tool that starts the job has been read: its result, or with `jobPolled` its call, as soon as the sandbox
 * has received that call's first poll of the job (the call waits on the job itself; the request that creates
 * the job is logged when it arrives, before the job exists). Returns the run, the events and what was seen
 * before the end.
 */
async function runHeld(scenario: string, startTool: string, advanceMs: number, jobPolled?: RequestLogFilter) {
  sandbox = await startSandbox({ clock: 'held' });
  outputDir = await mkdtemp(path.join(os.tmpdir(), 'demo-scenario-'));
  const held = sandbox;
  let startedAt: number | undefined;
  let linesBeforeAdvance = 0;
  let advanced: Promise<void> | undefined;
  const run = await runDemo(
    ['--json', '--scenario', scenario],
    {
      POLYMODAL_BASE_URL: held.url,
      POLYMODAL_API_KEY: held.apiKey,
      POLYMODAL_OUTPUT_DIR: outputDir,
      POLYMODAL_STATE_DIR: path.join(outputDir, 'state'),
    },
    (line) => {
      const event = JSON.parse(line) as DemoEvent;
      const startLine = jobPolled ? 'call' : 'result';
      if (startedAt === undefined && event.type === startLine && event.tool === startTool) {
        startedAt = event.seq;
        linesBeforeAdvance = event.seq;
        advanced = (jobPolled ? requestSeen(held, jobPolled) : Promise.resolve()).then(() =>
          held.control.advance(advanceMs),
        );
      }
    },
  );
  await advanced;
  return { run, events: parseEvents(run.stdout), startedAt, linesBeforeAdvance };
}

describe('pnpm demo --scenario video', () => {
  it('reads the catalog, starts a 5-second text-to-video job, follows its handle and saves the MP4', async () => {
    const { run, events, startedAt, linesBeforeAdvance } = await runHeld('video', 'generate_video', 120_000);
    expect(run.code, run.stderr).toBe(0);
    // The clock moved only after the start's line was read: the stream was live, not printed at the end.
    expect(startedAt).toBeDefined();
    expect(linesBeforeAdvance).toBeLessThan(events.length);

    const calls = events.filter((event) => event.type === 'call');
    expect(calls.map((event) => event.tool)).toEqual([
      'list_video_models',
      'generate_video',
      'get_video_job',
    ]);
    expect(calls[1]).toMatchObject({
      server: 'media',
      arguments: {
        model: 'hub:text-to-video-lite',
        prompt: 'a paper boat drifting across a pond at sunrise',
        duration: 5,
        waitSeconds: 0,
      },
    });
    const started = events.find((event) => event.type === 'result' && event.tool === 'generate_video');
    expect(started).toMatchObject({ ok: true, structured: { done: false } });
    const jobId = (started?.structured as { jobId?: string } | undefined)?.jobId;
    expect(calls[2]).toMatchObject({ arguments: { jobId } });
    const finished = events.find((event) => event.type === 'result' && event.tool === 'get_video_job');
    expect(finished).toMatchObject({ ok: true, structured: { done: true, outcome: 'succeeded', jobId } });
    const savedPath = String((finished?.structured as { savedPath?: string } | undefined)?.savedPath);
    expect(path.dirname(savedPath)).toBe(outputDir);
    expect((await readFile(savedPath)).subarray(4, 8).toString('latin1')).toBe('ftyp');

    const answer = events.find((event) => event.type === 'answer');
    expect(answer?.text).toContain(savedPath);
    expect(answerHeadingsOf(events)).toEqual(expectedHeadingsOf(events));
    expect(events.find((event) => event.type === 'files')).toMatchObject({ paths: [savedPath] });
    // One job at the platform, and one completion per model turn.
    expect(sandbox?.control.requests({ method: 'POST', path: '/api/modelhub/v1/videos' })).toHaveLength(1);
    const steps = events.filter((event) => event.type === 'step').length;
    expect(sandbox?.control.requests({ method: 'POST', path: '/chat/completions$' })).toHaveLength(steps);
  });
});

describe('pnpm demo --scenario flashcards', () => {
  it("fetches the media server's video_flashcards prompt, makes its call with its arguments and answers with the first cards", async () => {
    const { run, events, startedAt, linesBeforeAdvance } = await runHeld(
      'flashcards',
      'create_flashcards',
      600_000,
      { method: 'GET', path: '/api/video-flashcards/v1/jobs/vf_' },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(startedAt).toBeDefined();

    // The task is the prompt the media server answered to prompts/get: its name, its arguments, its text.
    const video = path.join(outputDir as string, 'media', 'sample-lesson.mp4');
    const task = events.find((event) => event.type === 'task');
    expect(task).toMatchObject({
      scenario: 'flashcards',
      parts: [
        { prompt: 'video_flashcards', server: 'media', arguments: { video, direction: 'thai_to_chinese' } },
      ],
    });
    expect(task?.text).toContain(
      `1. Call create_flashcards with ${JSON.stringify({ video, learningDirection: 'thai_to_chinese' })}`,
    );

    // The prompt's one call, with exactly its arguments: the tool waits on the job itself (its default
    // wait), and the job finished during that wait, once the clock moved after the call's line was read.
    const calls = events.filter((event) => event.type === 'call');
    expect(calls.map((event) => event.tool)).toEqual(['create_flashcards']);
    expect(calls[0]).toMatchObject({ server: 'media' });
    expect(calls[0]?.arguments).toEqual({ video, learningDirection: 'thai_to_chinese' });
    const finished = events.find((event) => event.type === 'result' && event.tool === 'create_flashcards') as
      | (DemoEvent & {
          structured: { savedPath: string; segmentCount: number; segments: { text: string }[] };
        })
      | undefined;
    expect(finished?.seq).toBeGreaterThan(linesBeforeAdvance);
    expect(finished).toMatchObject({
      ok: true,
      structured: { done: true, outcome: 'succeeded', sourceLanguage: 'th', targetLanguage: 'zh' },
    });
    expect(finished?.structured.segmentCount).toBeGreaterThan(0);
    const saved = JSON.parse(await readFile(finished?.structured.savedPath as string, 'utf8')) as {
      segments: unknown[];
    };
    expect(saved.segments).toHaveLength(finished?.structured.segmentCount as number);

    const answer = events.find((event) => event.type === 'answer')?.text as string;
    expect(answer).toContain('First flashcards:');
    expect(answerHeadingsOf(events)).toEqual(expectedHeadingsOf(events));
    expect(answer).toContain(`- ${finished?.structured.segments[0]?.text}`);
    expect(answer).toContain(finished?.structured.savedPath);
    expect(
      sandbox?.control.requests({ method: 'POST', path: '/api/video-flashcards/v1/jobs$' }),
    ).toHaveLength(1);
  });
});
