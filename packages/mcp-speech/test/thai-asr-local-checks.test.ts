/**
 * transcribe_thai through the built bin over stdio (its own process, so its memory and its thread pool are
 * measured alone; PATH without ffmpeg), against the sandbox's request log: bad input is refused before any
 * request (a 1.5 GB WAV, text saved as .wav, an empty file, an MP3 without ffmpeg, a path outside the
 * allowed directories, a missing file); a FIFO, a directory, /dev/zero and a socket are refused at once and
 * the server keeps serving; and a 200 MB WAV streams in bounded memory.
 *
 * Memory is the bin's peak resident set (VmHWM in /proc/<pid>/status, Linux) over its resident set after a
 * first transcription, so every code path is loaded before the baseline.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { parseWav } from '@polymodal/core/audio';
import { writeSparseWav } from '@polymodal/core/testing';
import { createThaiSpeech, THAI_PHRASES } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SpeechHarness, startSpeechHarness } from './support/harness.js';

const MIB = 1024 * 1024;
/** The bound: the server's memory may grow this much over its baseline, whatever the file. */
const MAX_GROWTH = 64 * MIB;
const PHRASES = [THAI_PHRASES[2], THAI_PHRASES[5]];

let harness: SpeechHarness;
let root: string;
let emptyPath: string;
let client: Client;
let transport: StdioClientTransport;
let baselineRss: number;
const servers: Server[] = [];

/** VmRSS and VmHWM (peak) of the bin, in bytes. */
async function memoryOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) * 1024;
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

async function call(args: Record<string, unknown>, timeout = 10_000) {
  const result = (await client.callTool(
    { name: 'transcribe_thai', arguments: args },
    {
      timeout,
    },
  )) as CallToolResult;
  const serialized = JSON.stringify(result);
  expect(serialized).not.toContain(harness.sandbox.apiKey);
  const text = result.content.map((item) => (item.type === 'text' ? item.text : '')).join('\n');
  return {
    isError: result.isError === true,
    text,
    structured: (result.structuredContent ?? {}) as Record<string, unknown>,
  };
}

const requestCount = () => harness.sandbox.control.requests().length;

beforeAll(async () => {
  harness = await startSpeechHarness();
  root = harness.root;
  emptyPath = await mkdtemp(path.join(os.tmpdir(), 'no-tools-'));
  await writeFile(path.join(root, 'thai.wav'), createThaiSpeech({ phrases: PHRASES }));
  const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));
  if (!existsSync(bin))
    throw new Error('Build first: pnpm turbo run build --filter=@polymodal/mcp-speech...');
  transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin],
    env: {
      ...harness.env,
      // No ffmpeg here, whatever the machine has installed; /dev is allowed to show that devices are refused.
      PATH: emptyPath,
      POLYMODAL_ALLOWED_DIRS: [root, '/dev'].join(path.delimiter),
      // The 200 MB recording below takes about 4 s alone; a machine busy with other test files once made
      // it reach the default 50 s deadline. This file checks refusals and memory, not the deadline.
      POLYMODAL_TOOL_DEADLINE_SECONDS: '110',
    },
    stderr: 'pipe',
  });
  client = new Client({ name: 'local-checks-test', version: '1.0.0' });
  await client.connect(transport);
  // A first transcription loads every code path (HTTP, WebSocket, decoding) before the baseline.
  const warm = await call({ audioPath: path.join(root, 'thai.wav'), speed: 0 });
  expect(warm.isError, warm.text).toBe(false);
  baselineRss = (await memoryOf(transport.pid as number)).rss;
}, 30_000);

afterAll(async () => {
  await client?.close();
  for (const server of servers) server.close();
  await harness?.close();
  await rm(emptyPath, { recursive: true, force: true });
});

describe('transcribe_thai checks the file before any request', () => {
  it('refuses a 1.5 GB WAV from its header: nothing reaches the platform, memory stays flat', async () => {
    const file = await writeSparseWav(
      path.join(root, 'all-day.wav'),
      { sampleRate: 16_000, channels: 1, bitsPerSample: 16, format: 'pcm' },
      1_500_000_000,
    );
    const before = requestCount();
    const result = await call({ audioPath: file, speed: 0 }, 30_000);
    expect(result.isError).toBe(true);
    expect(result.text).toContain('all-day.wav is 46875 s (13 h 1 min) of audio, longer than the 3600 s');
    expect(result.text).toMatch(/Nothing was sent\./);
    // Not even GET /api/thai-asr/config.
    expect(requestCount()).toBe(before);
    const { peak } = await memoryOf(transport.pid as number);
    expect(
      peak - baselineRss,
      `${((peak - baselineRss) / MIB).toFixed(1)} MiB over the baseline`,
    ).toBeLessThan(MAX_GROWTH);
  }, 60_000);

  it('refuses text saved as .wav, an empty file, an MP3 without ffmpeg, a path outside and a missing file, sending nothing', async () => {
    await writeFile(path.join(root, 'minutes.wav'), 'Minutes of the meeting, saved under the wrong name.\n');
    await writeFile(path.join(root, 'silence.wav'), '');
    await writeFile(path.join(root, 'speech.mp3'), Buffer.from('ID3\u0004\u0000 frames of an mp3'));
    const before = requestCount();
    for (const [audioPath, message] of [
      [path.join(root, 'minutes.wav'), /minutes\.wav is named like a WAV file but is not one: .*holds text/],
      [path.join(root, 'silence.wav'), /silence\.wav is empty \(0 bytes\)/],
      [
        path.join(root, 'speech.mp3'),
        /speech\.mp3 is not a WAV file, and decoding other formats needs ffmpeg, which was not found\. Install ffmpeg/,
      ],
      ['/etc/hostname', /outside the allowed directories/],
      [path.join(root, 'nowhere.wav'), /nowhere\.wav does not exist/],
    ] as const) {
      const result = await call({ audioPath, speed: 0 });
      expect(result.isError, audioPath).toBe(true);
      expect(result.text).toMatch(message);
      expect(result.text).toMatch(/Nothing was sent\./);
    }
    expect(requestCount()).toBe(before);
    // The empty file is called empty, not an unknown format needing ffmpeg.
    const empty = await call({ audioPath: path.join(root, 'silence.wav') });
    expect(empty.text).not.toMatch(/ffmpeg/);
  });

  it('refuses four FIFOs in a row, a directory, /dev/zero and a socket at once, then transcribes the next file', async () => {
    const before = requestCount();
    // Each call has 5 s: a blocking open of a FIFO with no writer would never return.
    for (let index = 0; index < 4; index++) {
      const fifo = path.join(root, `live-${index}.wav`);
      execFileSync('mkfifo', [fifo]);
      const result = await call({ audioPath: fifo, speed: 0 }, 5000);
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/live-\d\.wav is .*not a regular file/);
    }
    await mkdir(path.join(root, 'takes.wav'));
    const socketPath = path.join(root, 'mic.wav');
    const server = createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    for (const audioPath of [path.join(root, 'takes.wav'), '/dev/zero', socketPath]) {
      const result = await call({ audioPath, speed: 0 }, 5000);
      expect(result.isError, audioPath).toBe(true);
      expect(result.text, audioPath).toMatch(/not a regular file|cannot be opened|is a socket/);
    }
    expect(requestCount()).toBe(before);
    // The server still serves: no thread of its pool is stuck in an open().
    const next = await call({ audioPath: path.join(root, 'thai.wav'), speed: 0 }, 10_000);
    expect(next.isError, next.text).toBe(false);
    expect(next.structured.text).toBe(PHRASES.join(' '));
  }, 60_000);
});

describe('transcribe_thai streams a long recording', () => {
  it('a 200 MB WAV (48 kHz stereo float, 521 s) is decoded while it streams, in bounded memory', async () => {
    const dataBytes = 200_000_000;
    const file = await writeSparseWav(
      path.join(root, 'seminar.wav'),
      { sampleRate: 48_000, channels: 2, bitsPerSample: 32, format: 'float' },
      dataBytes,
    );
    // Speech at the start, silence (the file's hole) after it. The recogniser then answers while the rest
    // streams (each partial repeats what it heard). Silence alone gets no events until the final, and the
    // client takes a server that owes events and sends none for 10 s as stalled: on a busy machine
    // streaming the 521 s took longer than that, and the call answered incomplete.
    const speech = parseWav(createThaiSpeech({ phrases: PHRASES, sampleRate: 48_000 }));
    const pcm = Buffer.from(speech.data.buffer, speech.data.byteOffset, speech.data.byteLength);
    const frames = Buffer.alloc((pcm.length / 2) * 8);
    for (let index = 0; index < pcm.length / 2; index++) {
      const sample = pcm.readInt16LE(index * 2) / 32_768;
      frames.writeFloatLE(sample, index * 8);
      frames.writeFloatLE(sample, index * 8 + 4);
    }
    const handle = await open(file, 'r+');
    try {
      await handle.write(frames, 0, frames.length, 44);
    } finally {
      await handle.close();
    }
    const seconds = dataBytes / 8 / 48_000;
    const result = await call({ audioPath: file, speed: 0 }, 115_000);
    expect(result.isError, result.text).toBe(false);
    expect(result.structured).toMatchObject({ complete: true, text: PHRASES.join(' ') });
    expect(result.structured.audioSeconds).toBeCloseTo(seconds, 3);
    expect(result.structured.totalAudioSeconds).toBeCloseTo(seconds, 3);
    const { peak } = await memoryOf(transport.pid as number);
    // Whole-file decoding held the bytes (200 MB) and the samples as floats (100 MB) at once.
    expect(
      peak - baselineRss,
      `${((peak - baselineRss) / MIB).toFixed(1)} MiB over the baseline`,
    ).toBeLessThan(MAX_GROWTH);
  }, 120_000);
});
