/**
 * What the model sees through the combined server: every tool of the three servers once, only the chosen
 * toolsets, and in read-only mode nothing that spends credits or changes anything.
 */
import type { Tool } from '@modelcontextprotocol/server';
import { useServerEnv, withInMemoryClient } from '@polymodal/mcp-common/testing';
import { createServer as createMediaServer } from '@polymodal/mcp-media';
import { createServer as createMeetingServer } from '@polymodal/mcp-meeting';
import { createServer as createSpeechServer } from '@polymodal/mcp-speech';
import { describe, expect, it } from 'vitest';
import { type CombinedServerDeps, createServer } from '../src/server.js';

const { env } = useServerEnv({ name: 'mcp-combined-', sandbox: true });

/** Lists the tools a client sees on a server built by `create`, then closes it. */
function listTools(create: () => ReturnType<typeof createServer>): Promise<Tool[]> {
  return withInMemoryClient(create(), async (client) => (await client.listTools()).tools);
}

const names = (tools: Tool[]) => tools.map((tool) => tool.name).sort();
const combined = (deps: CombinedServerDeps = {}) => listTools(() => createServer({ env, ...deps }));

describe('the combined server', () => {
  it('serves every tool of the three servers, with list_jobs once', async () => {
    const single = [
      ...(await listTools(() => createMeetingServer({ env }))),
      ...(await listTools(() => createMediaServer({ env }))),
      ...(await listTools(() => createSpeechServer({ env }))),
    ];
    const tools = await combined();
    expect(names(tools)).toEqual([...new Set(names(single))].sort());
    expect(tools.filter((tool) => tool.name === 'list_jobs')).toHaveLength(1);
    // The one list_jobs points to every service's way of reading a job live, in its answer.
    const answer = await withInMemoryClient(createServer({ env }), (client) =>
      client.callTool({ name: 'list_jobs', arguments: {} }),
    );
    const text = (answer.content as { type: string; text: string }[])[0]?.text ?? '';
    for (const getTool of ['get_meeting', 'get_video_job', 'get_reading_score']) {
      expect(text).toContain(getTool);
    }
  });

  it('--toolsets media (or POLYMODAL_TOOLSETS) shows only the media tools', async () => {
    const media = names(await listTools(() => createMediaServer({ env })));
    expect(names(await combined({ toolsets: ['media'] }))).toEqual(media);
    expect(
      names(await listTools(() => createServer({ env: { ...env, POLYMODAL_TOOLSETS: 'media' } }))),
    ).toEqual(media);
  });

  it('--read-only (or POLYMODAL_READ_ONLY=1) shows only tools annotated read-only, and still some of each toolset', async () => {
    for (const tools of [
      await combined({ readOnly: true }),
      await listTools(() => createServer({ env: { ...env, POLYMODAL_READ_ONLY: '1' } })),
    ]) {
      for (const tool of tools) expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
      expect(names(tools)).toEqual(
        expect.arrayContaining(['get_meeting', 'list_video_models', 'list_llm_models', 'list_jobs']),
      );
      // Nothing that starts paid work or writes files is left.
      for (const hidden of [
        'summarize_meeting',
        'generate_video',
        'synthesize_speech',
        'export_meeting',
        'get_speech',
      ]) {
        expect(names(tools)).not.toContain(hidden);
      }
    }
    // The full server has tools that the read-only one hides.
    expect((await combined()).length).toBeGreaterThan((await combined({ readOnly: true })).length);
  });

  it('a single server honours POLYMODAL_READ_ONLY too', async () => {
    const tools = await listTools(() => createMeetingServer({ env: { ...env, POLYMODAL_READ_ONLY: '1' } }));
    expect(tools.length).toBeGreaterThan(0);
    for (const tool of tools) expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
  });
});
