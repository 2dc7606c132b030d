/**
 * Both protocol generations on the built `polymodal-mcp` bin (every tool of every server), over stdio and over
 * Streamable HTTP: a client pinned to 2026-07-28 and a 2025-11-25 client each list every tool and call every
 * one against the sandbox, and each call reads alike on both (the same outcome, the same structured fields).
 * Each generation gets a bin and a state directory of its own, so that both run the same flow from nothing
 * rather than the second resuming what the first paid for.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { access, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  createReadingRecording,
  createThaiSpeech,
  readMediaFixture,
  SAMPLE_READING_TEXT,
  type Sandbox,
  startSandbox,
  synthesizeVoice,
  THAI_PHRASES,
  writeMeetingRecording,
} from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GENERATIONS,
  modernClient,
  type ProtocolGeneration,
  sandboxSecrets,
  serverEnv,
  type ToolResult,
  toolCaller,
} from '../../mcp-common/test/support/server-harness.js';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'index.js');

/** What a call came to, as a host would tell two answers apart without reading ids or times. */
interface CallSummary {
  tool: string;
  isError: boolean;
  fields: string[];
}

interface RunningServer {
  client: Client;
  era: string | undefined;
  call: (name: string, args?: Record<string, unknown>) => Promise<ToolResult>;
  close(): Promise<void>;
}

let sandbox: Sandbox;
let root: string;

beforeAll(async () => {
  await access(BIN).catch(() => {
    throw new Error(`${BIN} is missing: build first (pnpm build).`);
  });
  sandbox = await startSandbox({ speed: 100 });
  root = await mkdtemp(path.join(os.tmpdir(), 'mcp-generations-'));
  const media = path.join(root, 'media');
  await mkdir(media);
  await writeMeetingRecording(path.join(media, 'standup.wav'), {
    script: [
      { speaker: 'A', text: 'Good morning. Today we ship the release.' },
      { speaker: 'B', text: 'I will write the notes by Friday.' },
    ],
  });
  await writeFile(path.join(media, 'thai.wav'), createThaiSpeech({ phrases: THAI_PHRASES.slice(0, 2) }));
  await writeFile(
    path.join(media, 'voice.wav'),
    synthesizeVoice({ text: 'This is my voice.', pitchHz: 180, seed: 7 }),
  );
  // Long enough to be queued by the platform rather than scored at once, so that it has a job to follow.
  await writeFile(
    path.join(media, 'reading.wav'),
    createReadingRecording({ attempts: [SAMPLE_READING_TEXT], secondsPerAttempt: 25 }),
  );
  await writeFile(path.join(media, 'cat.png'), readMediaFixture('png'));
  await writeFile(path.join(media, 'lesson.mp4'), readMediaFixture('mp4'));
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
  if (root) await rm(root, { recursive: true, force: true, maxRetries: 10 });
});

describe.each(['stdio', 'http'] as const)('the built polymodal-mcp bin over %s', (transport) => {
  const summaries = new Map<ProtocolGeneration, CallSummary[]>();

  it.each(GENERATIONS)(
    'a %s client lists every tool and calls every one',
    async (generation) => {
      const server = await start(transport, generation);
      try {
        expect(server.era).toBe(generation === '2026-07-28' ? 'modern' : 'legacy');
        summaries.set(generation, await callEveryTool(server));
      } finally {
        await server.close();
      }
    },
    180_000,
  );

  it('answers every call alike on both generations', () => {
    const [older, newer] = GENERATIONS.map((generation) => summaries.get(generation));
    expect(older).toBeDefined();
    expect(newer).toEqual(older);
  });
});

/** Every tool of the combined server, in an order that gives each the jobs and files it reads. */
async function callEveryTool(server: RunningServer): Promise<CallSummary[]> {
  const { tools } = await server.client.listTools();
  const called = new Set<string>();
  const summaries: CallSummary[] = [];
  const media = path.join(root, 'media');
  const call = async (tool: string, args: Record<string, unknown> = {}) => {
    const result = await server.call(tool, args);
    called.add(tool);
    summaries.push({ tool, isError: result.isError, fields: Object.keys(result.structured).sort() });
    return result;
  };
  const succeeds = async (tool: string, args: Record<string, unknown> = {}) => {
    const result = await call(tool, args);
    expect(result.isError, `${tool}: ${result.text}`).toBe(false);
    return result;
  };
  const done = async (tool: string, args: Record<string, unknown>) => {
    const result = await succeeds(tool, { ...args, waitSeconds: 45 });
    expect(result.structured.done, `${tool}: ${result.text}`).toBe(true);
    return result;
  };

  for (const tool of ['list_video_models', 'list_llm_models', 'list_voices', 'get_thai_asr_config']) {
    await succeeds(tool);
  }
  await succeeds('ask_llm', { prompt: 'Say hello in Thai.' });

  const meeting = await done('summarize_meeting', { path: path.join(media, 'standup.wav') });
  const meetingId = meeting.structured.jobId as string;
  await done('get_meeting', { jobId: meetingId });
  await succeeds('update_meeting', { jobId: meetingId, title: 'Standup' });
  await succeeds('export_meeting', { jobId: meetingId, what: 'summary', format: 'md' });
  await done('retranslate_meeting', { jobId: meetingId, targetLanguage: 'th' });
  await done('resummarize_meeting', { jobId: meetingId });
  await succeeds('list_meetings');
  // A finished job can be neither retried nor cancelled: each says so, as an error result the model reads.
  expect((await call('retry_meeting', { jobId: meetingId })).isError).toBe(true);
  await call('cancel_meeting', { jobId: meetingId });

  const video = await done('generate_video', {
    model: 'hub:text-to-video-lite',
    prompt: 'A lantern at dusk',
  });
  await done('get_video_job', { jobId: video.structured.jobId });
  await done('image_to_video', { prompt: 'The cat blinks', image: path.join(media, 'cat.png') });
  const deck = await done('create_flashcards', {
    video: path.join(media, 'lesson.mp4'),
    learningDirection: 'thai_to_chinese',
  });
  await done('get_flashcards', { jobId: deck.structured.jobId });
  const speech = await done('synthesize_speech', { text: 'Good morning, everyone.' });
  await done('get_speech', { jobId: speech.structured.jobId });
  await succeeds('register_voice', { audioPath: path.join(media, 'voice.wav'), consent: true });
  // Started without waiting, so that get_reading_score follows it by its handle.
  const score = await succeeds('score_reading', {
    studentAudioPath: path.join(media, 'reading.wav'),
    referenceText: SAMPLE_READING_TEXT,
    waitSeconds: 0,
  });
  await done('get_reading_score', { jobId: score.structured.jobId });
  await succeeds('transcribe_thai', { audioPath: path.join(media, 'thai.wav') });
  await succeeds('list_jobs');
  await succeeds('delete_meeting', { jobId: meetingId, confirm: true });

  expect([...called].sort()).toEqual(tools.map((tool) => tool.name).sort());
  return summaries;
}

/** The bin for one generation, with a state and output directory of its own, and its client. */
async function start(transport: 'stdio' | 'http', generation: ProtocolGeneration): Promise<RunningServer> {
  const own = await mkdtemp(path.join(root, `${transport}-${generation}-`));
  const env = {
    ...serverEnv(own, sandbox, 20),
    POLYMODAL_ALLOWED_DIRS: root,
    POLYMODAL_TOOL_DEADLINE_SECONDS: '50',
  };
  const client =
    generation === '2026-07-28'
      ? modernClient('generations')
      : new Client({ name: 'generations', version: '1' });
  let child: ChildProcess | undefined;
  if (transport === 'stdio') {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN],
        env: { PATH: process.env.PATH ?? '', ...env },
        stderr: 'ignore',
      }),
    );
  } else {
    const started = await startHttpBin(env);
    child = started.child;
    await client.connect(new StreamableHTTPClientTransport(new URL(started.url)));
  }
  return {
    client,
    era: client.getProtocolEra(),
    call: toolCaller(client, sandboxSecrets(sandbox)),
    async close() {
      await client.close();
      if (child) await stop(child);
    },
  };
}

/** `polymodal-mcp --http --port 0`, once it has said where it listens. */
async function startHttpBin(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, '--http', '--port', '0'], {
    env: { PATH: process.env.PATH ?? '', ...env, POLYMODAL_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const found = /endpoint at (http:\/\/\S+\/mcp)/.exec(stderr)?.[1];
      if (found) resolve(found);
    });
    child.once('exit', () => reject(new Error(`the bin exited before listening; stderr:\n${stderr}`)));
  });
  return { child, url };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
