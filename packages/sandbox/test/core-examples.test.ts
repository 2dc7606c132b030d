/**
 * The runnable examples of @polymodal/core's README (`packages/core/examples/*.ts`), run as a user runs
 * them: compiled to plain JavaScript, started as their own Node process with only the environment a user
 * sets (base URL, key, a state directory) and their arguments, against the sandbox. Each must exit 0, print
 * what it promises, and leave at the sandbox the one job it paid for. The README must quote each file
 * whole, so what readers copy is what runs here.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createReadingRecording,
  createThaiSpeech,
  type Sandbox,
  startSandbox,
  THAI_PHRASES,
  writeMeetingRecording,
} from '../src/index.js';
import { SHORT_SCRIPT } from './support/sandbox-client.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const examplesDir = path.resolve(here, '../../core/examples');
const readme = path.resolve(here, '../../core/README.md');
// Compiled next to this package so that `@polymodal/core` resolves as in a user's project (its dist).
const compiledDir = path.resolve(here, '../node_modules/.cache/core-examples');

let sandbox: Sandbox;
let work: string;

beforeAll(async () => {
  sandbox = await startSandbox({
    speed: 500,
    config: {
      media: {
        publicMedia: {
          'https://media.example/cat.png': { fixture: 'png' },
        },
      },
    },
  });
  work = await mkdtemp(path.join(os.tmpdir(), 'core-examples-'));
  await writeMeetingRecording(path.join(work, 'meeting.wav'), { script: SHORT_SCRIPT });
  await writeFile(path.join(work, 'student.wav'), createReadingRecording({ attempts: ['ฉันชอบอ่านหนังสือ'] }));
  await writeFile(path.join(work, 'thai.wav'), createThaiSpeech({ phrases: THAI_PHRASES.slice(0, 2) }));
  await mkdir(compiledDir, { recursive: true });
});
afterAll(async () => {
  await sandbox?.close();
  await rm(work, { recursive: true, force: true });
});

async function compile(name: string): Promise<string> {
  const source = await readFile(path.join(examplesDir, name), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    fileName: name,
  });
  const file = path.join(compiledDir, name.replace(/\.ts$/, '.mjs'));
  await writeFile(file, outputText);
  return file;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function runExample(name: string, args: string[]): Promise<Run> {
  const file = await compile(name);
  const child = spawn(process.execPath, [file, ...args], {
    cwd: work,
    env: {
      PATH: process.env.PATH,
      POLYMODAL_BASE_URL: sandbox.url,
      POLYMODAL_API_KEY: sandbox.apiKey,
      POLYMODAL_STATE_DIR: path.join(work, `state-${name}`),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const killer = setTimeout(() => child.kill('SIGKILL'), 50_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(killer);
  return { code, stdout, stderr };
}

function succeeded(run: Run): string {
  expect(run.code, run.stderr).toBe(0);
  return run.stdout.trim();
}

describe('the README examples of @polymodal/core, run against the sandbox', () => {
  it('are quoted whole in the README, every one of them', async () => {
    const text = await readFile(readme, 'utf8');
    const names = (await readdir(examplesDir)).filter((name) => name.endsWith('.ts')).sort();
    expect(names).toHaveLength(8);
    for (const name of names) {
      const source = (await readFile(path.join(examplesDir, name), 'utf8')).trimEnd();
      expect(text, `${name} is not quoted whole in packages/core/README.md`).toContain(
        `<!-- examples/${name} -->\n\n\`\`\`ts\n${source}\n\`\`\``,
      );
    }
  });

  // Concurrent: each waits on its service's polling interval, not on CPU.
  describe.concurrent('each example', () => {
    it('summarize-meeting.ts prints the overview of one job', async () => {
      const out = succeeded(await runExample('summarize-meeting.ts', ['meeting.wav', 'en']));
      expect(out.length).toBeGreaterThan(20);
      // One upload and one job, whatever the other examples running beside it create.
      expect(Object.values(sandbox.control.counters().uploads).reduce((a, b) => a + b, 0)).toBe(1);
      expect(
        sandbox.control.requests({ method: 'POST', path: /conference-summary\/v1\/jobs$/ }),
      ).toHaveLength(1);
    });

    it('ask-llm.ts prints the model answer', async () => {
      expect(succeeded(await runExample('ask-llm.ts', ['Say hello in Thai.'])).length).toBeGreaterThan(0);
    });

    it('score-reading.ts prints an overall score', async () => {
      const out = succeeded(await runExample('score-reading.ts', ['student.wav', 'ฉันชอบอ่านหนังสือ']));
      expect(out).toMatch(/^overall \d+(\.\d+)?$/);
    });

    it('transcribe-thai.ts prints the Thai transcript', async () => {
      const out = succeeded(await runExample('transcribe-thai.ts', ['thai.wav']));
      expect(out).toContain(THAI_PHRASES[0]);
    });

    it('synthesize-speech.ts writes one WAV', async () => {
      const out = succeeded(await runExample('synthesize-speech.ts', ['สวัสดีครับ', 'hello.wav']));
      expect(out).toMatch(/^hello\.wav: 1 part\(s\)/);
      const wav = await readFile(path.join(work, 'hello.wav'));
      expect(wav.subarray(0, 4).toString('latin1')).toBe('RIFF');
    });

    it('generate-video.ts prints a finished video URL', async () => {
      const out = succeeded(await runExample('generate-video.ts', ['A paper boat on a rainy street']));
      expect(out).toMatch(/^\S+ (https?:\/\/|\/)\S+\.mp4/);
    });

    it('image-to-video.ts prints a finished video URL', async () => {
      const out = succeeded(
        await runExample('image-to-video.ts', ['https://media.example/cat.png', 'The cat turns']),
      );
      expect(out).toMatch(/^\S+ (https?:\/\/|\/)\S+\.mp4/);
    });

    it('flashcards.ts prints the segments it got', async () => {
      const out = succeeded(
        await runExample('flashcards.ts', ['https://www.youtube.com/watch?v=dQw4w9WgXcQ']),
      );
      expect(out).toMatch(/^[1-9]\d* segment\(s\)$/m);
    });
  });
});
