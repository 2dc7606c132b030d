/**
 * The combined server offers the prompts of its toolsets, and only those whose tools it serves: every
 * server's prompts with every toolset, the meeting prompts with `--toolsets meeting`, and none in the
 * read-only mode (every prompt starts paid work), where it then declares no prompts capability at all. On
 * both protocol generations, in-process; the built bin is tested in stdio-bin.test.ts.
 */
import {
  completionOf,
  connectInProcess,
  expectInOrder,
  GENERATIONS,
  type ProtocolGeneration,
  promptText,
  useServerEnv,
} from '@polymodal/mcp-common/testing';
import { describe, expect, it } from 'vitest';
import { type CombinedServerDeps, createServer } from '../src/server.js';

const { env } = useServerEnv({ name: 'mcp-combined-prompts-', sandbox: false });

function connect(generation: ProtocolGeneration, deps: CombinedServerDeps = {}) {
  return connectInProcess(generation, (options) => createServer({ ...deps, ...options }), {
    env,
    secrets: [],
  });
}

async function promptNames(generation: ProtocolGeneration, deps?: CombinedServerDeps) {
  const server = await connect(generation, deps);
  try {
    const declared = server.client.getServerCapabilities()?.prompts;
    // Completion is offered exactly where prompts are: it completes their arguments.
    expect(server.client.getServerCapabilities()?.completions).toEqual(declared && {});
    if (declared === undefined) return { declared, names: [] };
    const { prompts } = await server.client.listPrompts();
    return { declared, names: prompts.map((prompt) => prompt.name) };
  } finally {
    await server.close();
  }
}

describe.each(GENERATIONS)('the combined server prompts, %s', (generation) => {
  it("offers every server's prompts, in the order of its toolsets", async () => {
    expect(await promptNames(generation)).toEqual({
      declared: { listChanged: false },
      names: [
        'meeting_minutes',
        'translate_meeting',
        'make_video',
        'video_flashcards',
        'speak_text',
        'check_thai_reading',
        'thai_transcript',
      ],
    });
  });

  it('offers only the meeting prompts with the meeting toolset', async () => {
    expect(await promptNames(generation, { toolsets: ['meeting'] })).toEqual({
      declared: { listChanged: false },
      names: ['meeting_minutes', 'translate_meeting'],
    });
  });

  it('offers no prompt, and declares none, in the read-only mode', async () => {
    expect(await promptNames(generation, { readOnly: true })).toEqual({ declared: undefined, names: [] });
  });

  it("completes a mounted server's prompt, and refuses one of a toolset left out", async () => {
    const server = await connect(generation, { toolsets: ['meeting'] });
    try {
      expect((await completionOf(server.client, 'translate_meeting', 'targetLanguage', 'en')).values).toEqual(
        ['en'],
      );
      await expect(completionOf(server.client, 'speak_text', 'language', '')).rejects.toMatchObject({
        code: -32602,
        message: 'Prompt speak_text not found',
      });
    } finally {
      await server.close();
    }
  });

  it('gets a prompt of a mounted server as that server gives it', async () => {
    const server = await connect(generation, { toolsets: ['speech'] });
    try {
      const text = await promptText(server.client, 'thai_transcript', { recording: 'lesson.wav' });
      expectInOrder(text, ['transcribe_thai', JSON.stringify({ audioPath: 'lesson.wav' })]);
    } finally {
      await server.close();
    }
  });
});
