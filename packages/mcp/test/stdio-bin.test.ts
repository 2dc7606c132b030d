/**
 * The built `polymodal-mcp` bin over stdio, as a host starts it: the chosen toolsets and read-only mode from
 * the command line, a real tool call against the sandbox, the prompts of the chosen toolsets, and every
 * server's views served to a host that renders them.
 */
import { access, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { completionOf, expectInOrder, promptText, useServerEnv } from '@polymodal/mcp-common/testing';
import { connectBin, RENDERS_VIEWS, readView } from '@polymodal/mcp-common/testing/views';
import { type Sandbox, startSandbox } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'index.js');

describe('the built polymodal-mcp bin over stdio', () => {
  let sandbox: Sandbox;
  let root: string;
  let client: Client;
  let stderr = '';

  beforeAll(async () => {
    await access(BIN).catch(() => {
      throw new Error(
        `${BIN} is missing: build the package first (pnpm turbo run build --filter=@polymodal/mcp...)`,
      );
    });
    sandbox = await startSandbox({ speed: 100 });
    root = await mkdtemp(path.join(os.tmpdir(), 'mcp-combined-bin-'));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, '--toolsets', 'media,speech', '--read-only'],
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

  it('lists only read-only media and speech tools and answers a call from the platform', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toContain('list_video_models');
    expect(names).toContain('list_llm_models');
    expect(names).not.toContain('get_meeting');
    expect(names).not.toContain('generate_video');
    for (const tool of tools) expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);

    const result = await client.callTool({ name: 'list_video_models', arguments: {} });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const models = (result.structuredContent as { models: { id: string }[] }).models;
    expect(models.length).toBeGreaterThan(0);
    expect(stderr).not.toContain(sandbox.apiKey);
  });

  it('offers no prompt in the read-only mode, and declares neither prompts nor completion', async () => {
    expect(client.getServerCapabilities()?.prompts).toBeUndefined();
    expect(client.getServerCapabilities()?.completions).toBeUndefined();
  });
});

describe('the built polymodal-mcp bin offers the prompts of its toolsets', () => {
  // Listing and getting a prompt calls nothing: the platform is a closed port.
  const { env } = useServerEnv({ name: 'mcp-combined-prompts-bin-', sandbox: false });

  it('lists the meeting prompts with --toolsets meeting, gets one and completes its recording', async () => {
    const client = new Client({ name: 'bin-prompts-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, '--toolsets', 'meeting'],
        env: { PATH: process.env.PATH ?? '', ...env },
        stderr: 'ignore',
      }),
    );
    try {
      const { prompts } = await client.listPrompts();
      expect(prompts.map((prompt) => prompt.name)).toEqual(['meeting_minutes', 'translate_meeting']);
      const text = await promptText(client, 'meeting_minutes', { recording: 'team/weekly.m4a' });
      expectInOrder(text, ['summarize_meeting', 'get_meeting', 'export_meeting']);
      expect(text).toContain(JSON.stringify({ path: 'team/weekly.m4a' }));
      // Over stdio the person is on this machine: the recordings complete by their absolute path.
      await mkdir(path.join(env.POLYMODAL_ALLOWED_DIRS as string, 'team'), { recursive: true });
      await writeFile(path.join(env.POLYMODAL_ALLOWED_DIRS as string, 'team', 'weekly.m4a'), 'x');
      const folder = `${env.POLYMODAL_ALLOWED_DIRS}/team/`;
      expect((await completionOf(client, 'meeting_minutes', 'recording', folder)).values).toEqual([
        `${folder}weekly.m4a`,
      ]);
    } finally {
      await client.close();
    }
  }, 30_000);
});

describe('the built polymodal-mcp bin serves every view', () => {
  // Listing and reading views calls nothing: the platform is a closed port.
  const { env } = useServerEnv({ name: 'mcp-combined-views-', sandbox: false });

  it("lists each server's views on their tools, the app-only tools as such, and serves every view", async () => {
    const client = await connectBin({ bin: BIN, env, capabilities: RENDERS_VIEWS });
    try {
      const { tools } = await client.listTools();
      const views = Object.fromEntries(
        tools.filter((tool) => tool._meta?.ui).map((tool) => [tool.name, tool._meta?.ui]),
      );
      const meeting = { resourceUri: 'ui://polymodal/meeting-viewer.html' };
      const player = { resourceUri: 'ui://polymodal/media-player.html' };
      const deck = { resourceUri: 'ui://polymodal/flashcard-deck.html' };
      const score = { resourceUri: 'ui://polymodal/reading-score.html' };
      const appOnly = { visibility: ['app'] };
      expect(views).toEqual({
        summarize_meeting: meeting,
        get_meeting: meeting,
        retry_meeting: meeting,
        resummarize_meeting: meeting,
        retranslate_meeting: meeting,
        meeting_view_page: appOnly,
        meeting_view_export: appOnly,
        meeting_view_recording: appOnly,
        generate_video: player,
        image_to_video: player,
        get_video_job: player,
        create_flashcards: deck,
        get_flashcards: deck,
        synthesize_speech: player,
        get_speech: player,
        score_reading: score,
        get_reading_score: score,
      });
      for (const { resourceUri } of [meeting, player, deck, score]) {
        expect((await readView(client, resourceUri)).html).toMatch(/^<!doctype html>/);
      }
    } finally {
      await client.close();
    }
    // A host without the extension sees none of it (and none of the app-only tools).
    const plain = await connectBin({ bin: BIN, env, capabilities: {} });
    try {
      const { tools } = await plain.listTools();
      expect(JSON.stringify(tools)).not.toMatch(/"ui"|ui:\/\/|meeting_view_/);
    } finally {
      await plain.close();
    }
  }, 30_000);
});
