/**
 * transcribe_thai and get_thai_asr_config through an MCP client against the sandbox, with captions as
 * progress notifications, a recogniser that stops answering (the call still ends within its deadline, with
 * the text so far) and one malformed event; and transcribe_thai once through the built bin over stdio.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createThaiSpeech, THAI_PHRASES } from '@polymodal/sandbox';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectWithDeadline, type SpeechHarness, startSpeechHarness } from './support/harness.js';

const PHRASES = [THAI_PHRASES[1], THAI_PHRASES[4]];
let harness: SpeechHarness;
let client: Client;
let root: string;

beforeAll(async () => {
  harness = await startSpeechHarness();
  ({ client, root } = harness);
  await writeFile(path.join(root, 'thai.wav'), createThaiSpeech({ phrases: PHRASES, sampleRate: 22_050 }));
});
afterAll(() => harness.close());
afterEach(() => harness.sandbox.control.clearFaults());

describe('Thai recognition tools', () => {
  it("transcribes a file with captions as progress, then reports today's usage", async () => {
    const captions: string[] = [];
    const result = (await client.callTool(
      { name: 'transcribe_thai', arguments: { audioPath: path.join(root, 'thai.wav'), speed: 4 } },
      { onprogress: (progress) => captions.push(progress.message ?? '') },
    )) as CallToolResult;
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      text: PHRASES.join(' '),
      segments: [{ text: PHRASES[0] }, { text: PHRASES[1] }],
    });
    expect(captions).toContain(PHRASES[0]);
    expect(JSON.stringify(result)).not.toContain(harness.env.POLYMODAL_API_KEY);

    const config = (await client.callTool({ name: 'get_thai_asr_config', arguments: {} })) as CallToolResult;
    expect(config.structuredContent).toMatchObject({
      language: 'th',
      engine: 'engine_t',
      limits: { concurrent_sessions: 3 },
    });
    expect(
      (config.structuredContent as { limits: { today_audio_seconds_used: number } }).limits
        .today_audio_seconds_used,
    ).toBeGreaterThan(2);
  });

  it('refuses a file outside the allowed directories, and a file that is not WAV points to ffmpeg, sending nothing', async () => {
    const before = harness.sandbox.control.requests().length;
    const outside = (await client.callTool({
      name: 'transcribe_thai',
      arguments: { audioPath: '/etc/hostname' },
    })) as CallToolResult;
    expect(outside.isError).toBe(true);
    expect(JSON.stringify(outside.content)).toMatch(/outside the allowed directories/);
    await writeFile(path.join(root, 'notes.txt'), 'not audio');
    const notAudio = (await client.callTool({
      name: 'transcribe_thai',
      arguments: { audioPath: path.join(root, 'notes.txt') },
    })) as CallToolResult;
    expect(notAudio.isError).toBe(true);
    // ffmpeg is named either way: missing (how to install it) or present (what it could not read).
    expect(JSON.stringify(notAudio.content)).toMatch(/ffmpeg/);
    // Refused before GET /api/thai-asr/config, too.
    expect(harness.sandbox.control.requests().length).toBe(before);
  });

  it('answers within its deadline with the partial text when the recogniser stops sending events', async () => {
    const long = path.join(root, 'long-thai.wav');
    await writeFile(long, createThaiSpeech({ phrases: THAI_PHRASES.slice(0, 10) }));
    // ready, started, speech_start and one partial; then silence while the socket stays open.
    harness.sandbox.control.setFaults([
      { match: { path: '/thai-asr/stream$' }, kind: 'ws-stall', afterEvents: 4, count: 1 },
    ]);
    // 5 s: the first partial needs about 0.8 s of audio streamed in real time after the session is set up,
    // and the client stops sending a quarter of the call's time before its end; 2 s left a busy machine
    // too little to get there.
    const session = await connectWithDeadline(harness, 5);
    try {
      const started = Date.now();
      const result = await session.call('transcribe_thai', { audioPath: long, speed: 1 });
      const elapsed = Date.now() - started;
      expect(result.isError, result.text).toBe(false);
      expect(result.structured).toMatchObject({
        complete: false,
        incompleteReason: 'deadline',
        text: THAI_PHRASES[0],
      });
      expect(result.text).toMatch(
        /^incomplete: the call's time ran out after \d+\.\d s of audio \(of \d+\.\d s\)/,
      );
      expect(result.text).toContain(THAI_PHRASES[0]);
      expect(result.text).toMatch(/Next: call transcribe_thai again with speed=\d+/);
      // The tool's deadline (5 s) plus what a result may take to come back on a busy machine; without the
      // deadline the stalled recogniser would hold the call until the idle timeout (10 s after its last event).
      expect(elapsed).toBeLessThan(9_000);
    } finally {
      await session.close();
    }
  });

  it('skips one malformed recogniser event and still returns the whole transcript', async () => {
    harness.sandbox.control.setFaults([
      { match: { path: '/thai-asr/stream$' }, kind: 'ws-malformed', afterEvents: 3, count: 1 },
    ]);
    const result = (await client.callTool({
      name: 'transcribe_thai',
      arguments: { audioPath: path.join(root, 'thai.wav'), speed: 0 },
    })) as CallToolResult;
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      text: PHRASES.join(' '),
      complete: true,
      skippedEvents: 1,
    });
    expect(JSON.stringify(result.content)).toContain('1 malformed recogniser event(s) were skipped');
  });

  it('transcribes over stdio from the built bin', async () => {
    const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    if (!existsSync(bin))
      throw new Error('Build first: pnpm turbo run build --filter=@polymodal/mcp-speech...');
    const stdio = new Client({ name: 'stdio-test', version: '1.0.0' });
    await stdio.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [bin],
        env: { PATH: process.env.PATH ?? '', ...harness.env },
        stderr: 'pipe',
      }),
    );
    try {
      const result = (await stdio.callTool({
        name: 'transcribe_thai',
        arguments: { audioPath: path.join(root, 'thai.wav'), speed: 0 },
      })) as CallToolResult;
      expect((result.structuredContent as { text: string }).text).toBe(PHRASES.join(' '));
    } finally {
      await stdio.close();
    }
  });
});
