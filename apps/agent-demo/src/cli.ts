#!/usr/bin/env node
/**
 * `pnpm demo`: an agent on the platform's shared LLM that reaches the Polymodal MCP servers over stdio and
 * runs the built-in scenario (or the task given in words), on the embedded sandbox unless
 * POLYMODAL_BASE_URL and POLYMODAL_API_KEY point at the real platform.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createPolymodal } from '@polymodal/core';
import {
  createThaiSpeech,
  SAMPLE_MEETING_SCRIPT,
  SAMPLE_READING_TEXT,
  THAI_PHRASES,
  writeMeetingRecording,
  writeReadingRecording,
} from '@polymodal/sandbox';
import { collectMcpTools } from './agent/mcp-tools.js';
import { createPlatformModel } from './agent/platform-model.js';
import { runAgent } from './agent/run-agent.js';
import { openPlatform } from './platform.js';
import { createConsoleReporter, createJsonReporter, type Reporter } from './reporter.js';
import { connectServer, serverBin } from './servers.js';

const HELP = `Usage: pnpm demo [-- [--json] [--verbose] [--max-steps N] ["<task in words>"]]

An agent on the platform's shared LLM uses the Polymodal meeting, media and speech MCP servers (spawned over
stdio, as a desktop host does). Without a task it runs the built-in scenario: summarise the bundled sample
meeting recording with a Thai translation, export the summary (Markdown), transcript (SRT) and translation
(VTT) into ./demo-output, synthesise the action items as Thai speech (a WAV in ./demo-output), score a
bundled sample of a student's Thai reading, and transcribe a Thai speech sample with the streaming
recogniser.

With no POLYMODAL_BASE_URL the demo starts the embedded sandbox (a local simulation of the platform: no key,
no network). With POLYMODAL_BASE_URL and POLYMODAL_API_KEY set it runs unchanged against that platform;
POLYMODAL_LLM_MODEL picks the model (default: the first one listed).

Options:
  --json         print a machine-readable trace instead of the narrated run
  --verbose      also show the servers' stderr logs
  --max-steps N  model turns allowed (default 12)
  --help         show this text`;

const DEFAULT_MAX_STEPS = 12;

/** The servers the agent reaches, spawned over stdio: [name, package, bin]. */
const SERVERS: readonly (readonly [string, string, string])[] = [
  ['meeting', '@polymodal/mcp-meeting', 'polymodal-mcp-meeting'],
  ['media', '@polymodal/mcp-media', 'polymodal-mcp-media'],
  ['speech', '@polymodal/mcp-speech', 'polymodal-mcp-speech'],
];

export function builtInTask(recordingPath: string, readingPath: string, speechPath: string): string {
  return (
    `Summarise the meeting recording at ${recordingPath} (spoken in English), titled "Weekly product sync", with a ` +
    'Thai translation. Export the summary as Markdown, the transcript as SRT and the Thai translation as VTT, ' +
    'and synthesise the action items as speech in Thai. ' +
    `Then score the student's Thai reading at ${readingPath} against "${SAMPLE_READING_TEXT}", and transcribe ` +
    `the Thai speech at ${speechPath}. Finally tell me the decisions, the action items with their owners, what ` +
    'the student should practise, and what the Thai speech says.'
  );
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    options: {
      json: { type: 'boolean' },
      verbose: { type: 'boolean' },
      help: { type: 'boolean' },
      'max-steps': { type: 'string' },
    },
    allowPositionals: true,
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const maxSteps = values['max-steps'] ? Number(values['max-steps']) : DEFAULT_MAX_STEPS;
  if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new Error('--max-steps must be a positive integer');
  const reporter: Reporter = values.json ? createJsonReporter() : createConsoleReporter();
  const outputDir = path.resolve(process.env.POLYMODAL_OUTPUT_DIR ?? 'demo-output');
  const mediaDir = path.join(outputDir, 'media');
  await mkdir(mediaDir, { recursive: true });

  const platform = await openPlatform(process.env);
  // The embedded sandbox is new on every run, so its job ids are too: keep its job ledger per run.
  const scratch = platform.embedded ? await mkdtemp(path.join(os.tmpdir(), 'polymodal-demo-')) : undefined;
  const stateDir = scratch ?? process.env.POLYMODAL_STATE_DIR;
  const polymodal = createPolymodal({ baseUrl: platform.baseUrl, apiKey: platform.apiKey, ledger: false });
  try {
    reporter.emit({ type: 'platform', baseUrl: platform.baseUrl, embedded: platform.embedded });
    const recordingPath = path.join(mediaDir, 'sample-meeting.wav');
    await writeMeetingRecording(recordingPath, { script: SAMPLE_MEETING_SCRIPT });
    // A student who read one word wrong: "write" (เขียน) instead of "read" (อ่าน).
    const readingPath = path.join(mediaDir, 'sample-reading.wav');
    await writeReadingRecording(readingPath, { attempts: ['ฉันชอบเขียนหนังสือที่ห้องสมุด'] });
    // "Hello" and "The meeting starts at nine", at 44.1 kHz: the client resamples before streaming.
    const speechPath = path.join(mediaDir, 'sample-thai-speech.wav');
    await writeFile(
      speechPath,
      createThaiSpeech({ phrases: [THAI_PHRASES[0], THAI_PHRASES[4]], sampleRate: 44_100 }),
    );
    const model = await createPlatformModel(polymodal, process.env);
    reporter.emit({ type: 'model', model: model.id });

    const serverEnv = {
      POLYMODAL_BASE_URL: platform.baseUrl,
      POLYMODAL_API_KEY: platform.apiKey,
      POLYMODAL_ALLOWED_DIRS: mediaDir,
      POLYMODAL_OUTPUT_DIR: outputDir,
      ...(stateDir ? { POLYMODAL_STATE_DIR: stateDir } : {}),
    };
    const servers = await Promise.all(
      SERVERS.map(([name, packageName, binName]) =>
        connectServer({
          name,
          bin: serverBin(packageName, binName),
          env: serverEnv,
          onLog: values.verbose ? (line) => process.stderr.write(`[${name}] ${line}\n`) : undefined,
        }),
      ),
    );
    try {
      const tools = await collectMcpTools(servers, reporter);
      const task = positionals.join(' ').trim() || builtInTask(recordingPath, readingPath, speechPath);
      reporter.emit({ type: 'task', text: task, tools: tools.length });
      const run = await runAgent({ model, tools, task, maxSteps, reporter });
      reporter.emit({ type: 'answer', text: run.answer });
      const files = run.toolCalls
        .map((call) => call.structured?.path ?? call.structured?.savedPath)
        .filter((value): value is string => typeof value === 'string');
      reporter.emit({ type: 'files', paths: [recordingPath, readingPath, speechPath, ...files] });
      return run.stopped === 'answer' && run.toolCalls.every((call) => call.ok) ? 0 : 1;
    } finally {
      await Promise.all(servers.map((server) => server.close()));
    }
  } finally {
    reporter.finish();
    await polymodal.close();
    await platform.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}

// Output piped into `head` and the like: stop quietly when the reader goes away.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
