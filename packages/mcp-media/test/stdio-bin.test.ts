/**
 * The built bin over stdio, as a desktop host runs it: a video and a speech file generated end to end
 * against the sandbox, saved into the output directory, with nothing but protocol on stdout.
 */
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type Sandbox, startSandbox } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'index.js');

describe('the built media bin over stdio', () => {
  let sandbox: Sandbox;
  let root: string;
  let client: Client;
  let stderr = '';

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
    client = new Client({ name: 'bin-test', version: '1.0.0' });
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
      undefined,
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
      undefined,
      { timeout: 40_000 },
    );
    expect(speech.isError, JSON.stringify(speech.content)).toBeFalsy();
    const speechPath = (speech.structuredContent as { savedPath: string }).savedPath;
    expect((await readFile(speechPath)).subarray(8, 12).toString('latin1')).toBe('WAVE');
    expect(stderr).not.toContain(sandbox.apiKey);
  });
});
