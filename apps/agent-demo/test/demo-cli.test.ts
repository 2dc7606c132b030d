/**
 * The demo as a newcomer runs it: the built CLI on the embedded sandbox, servers spawned over stdio.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
let outputDir: string;

function runDemo(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(() => {
  if (!existsSync(cli))
    throw new Error('Build the demo first: pnpm turbo run build --filter=@polymodal/agent-demo...');
});

afterEach(async () => {
  if (outputDir) await rm(outputDir, { recursive: true, force: true });
});

describe('pnpm demo on the embedded sandbox', () => {
  it('summarises the meeting, exports the files, speaks the action items in Thai, scores the reading and transcribes the Thai sample over stdio', async () => {
    outputDir = await mkdtemp(path.join(os.tmpdir(), 'demo-test-'));
    const run = await runDemo(['--json'], {
      POLYMODAL_OUTPUT_DIR: outputDir,
      POLYMODAL_SANDBOX_SPEED: '100',
    });
    expect(run.code, run.stderr).toBe(0);
    const trace = JSON.parse(run.stdout) as { events: Array<{ type: string } & Record<string, unknown>> };
    const event = <T>(type: string) =>
      trace.events.find((candidate) => candidate.type === type) as unknown as T;

    const platform = event<unknown>('platform');
    expect(platform).toMatchObject({ embedded: true });
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
    expect(answer.text).toContain('Weekly product sync');
    expect(answer.text).toMatch(/Action items:\n- .+\(Speaker \d/);
    const model = event<{ model: string }>('model');
    expect(model.model).toBe('sandbox-planner-1');
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
    const trace = JSON.parse(run.stdout) as { events: Array<{ type: string } & Record<string, unknown>> };
    const calls = trace.events.filter((event) => event.type === 'call');
    expect(calls.map((event) => event.tool)).toEqual(['summarize_meeting', 'export_meeting']);
    expect(calls[0]).toMatchObject({ arguments: { targetLanguage: 'fr' } });
    expect(trace.events.find((event) => event.type === 'task')).toMatchObject({ text: task });
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
