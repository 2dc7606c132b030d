/**
 * The built bin over stdio, as a desktop host runs it: a video and a speech file generated end to end
 * against the sandbox, saved into the output directory, with nothing but protocol on stdout; and the
 * consent question of register_voice, whose answer the bin checks with a JSON Schema validator it loads
 * only when it asks (the bundle leaves the SDK's own static one out).
 */
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, type ElicitResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { type Sandbox, startSandbox, synthesizeVoice } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'index.js');

describe('the built media bin over stdio', () => {
  let sandbox: Sandbox;
  let root: string;
  let client: Client;
  let stderr = '';
  /** What the client answers to the bin's next consent questions, in order. */
  const consentAnswers: ElicitResult[] = [];

  beforeAll(async () => {
    await access(BIN).catch(() => {
      throw new Error(
        `${BIN} is missing: build the package first (pnpm turbo run build --filter=@polymodal/mcp-media...)`,
      );
    });
    sandbox = await startSandbox({ speed: 100 });
    root = await mkdtemp(path.join(os.tmpdir(), 'mcp-media-bin-'));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN],
      env: {
        PATH: process.env.PATH ?? '',
        POLYMODAL_BASE_URL: sandbox.url,
        POLYMODAL_API_KEY: sandbox.apiKey,
        POLYMODAL_STATE_DIR: path.join(root, 'state'),
        POLYMODAL_ALLOWED_DIRS: root,
        POLYMODAL_OUTPUT_DIR: path.join(root, 'out'),
      },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    client = new Client({ name: 'bin-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(
      'elicitation/create',
      async () => consentAnswers.shift() ?? { action: 'decline' },
    );
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
    await sandbox?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('generates a video and a speech file into the output directory', async () => {
    const video = await client.callTool(
      {
        name: 'generate_video',
        arguments: { model: 'hub:text-to-video-lite', prompt: 'Sunrise over rice fields', waitSeconds: 30 },
      },
      { timeout: 40_000 },
    );
    expect(video.isError, JSON.stringify(video.content)).toBeFalsy();
    const videoPath = (video.structuredContent as { savedPath: string }).savedPath;
    expect(path.dirname(videoPath)).toContain(path.join(path.basename(root), 'out'));
    expect((await readFile(videoPath)).subarray(4, 8).toString('latin1')).toBe('ftyp');

    const speech = await client.callTool(
      {
        name: 'synthesize_speech',
        arguments: { text: 'ประชุมครั้งหน้าวันอังคาร', language: 'th', waitSeconds: 30 },
      },
      { timeout: 40_000 },
    );
    expect(speech.isError, JSON.stringify(speech.content)).toBeFalsy();
    const speechPath = (speech.structuredContent as { savedPath: string }).savedPath;
    expect((await readFile(speechPath)).subarray(8, 12).toString('latin1')).toBe('WAVE');
    expect(stderr).not.toContain(sandbox.apiKey);
  });

  it('checks the consent answer against its schema: a wrong type is refused, a yes registers the voice', async () => {
    const audioPath = path.join(root, 'owner.wav');
    await writeFile(audioPath, synthesizeVoice({ text: 'This is my voice.', pitchHz: 180, seed: 7 }));
    consentAnswers.push({ action: 'accept', content: { ownerConsents: 'yes' } });
    const refused = await client.callTool({
      name: 'register_voice',
      arguments: { audioPath, name: 'Owner' },
    });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toMatch(/does not match requested schema/);
    expect(
      sandbox.control.requests({ path: '/custom-voices' }).filter((r) => r.method === 'POST'),
    ).toHaveLength(0);

    consentAnswers.push({ action: 'accept', content: { ownerConsents: true } });
    const registered = await client.callTool({
      name: 'register_voice',
      arguments: { audioPath, name: 'Owner' },
    });
    expect(registered.isError, JSON.stringify(registered.content)).toBeFalsy();
    expect((registered.structuredContent as { cloneAudio?: string }).cloneAudio).toBeTruthy();
    expect(
      sandbox.control.requests({ path: '/custom-voices' }).filter((r) => r.method === 'POST'),
    ).toHaveLength(1);
  });
});
