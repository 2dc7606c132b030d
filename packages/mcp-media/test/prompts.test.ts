/**
 * The media server's prompts as a person's host sees them, on both protocol generations: listed with their
 * arguments in the order a host asks for them (free text last), and got as one message that names the tools
 * to call in order with the person's values quoted. Listing and getting a prompt calls nothing: the platform
 * is a closed port.
 */
import {
  connectInProcess,
  expectInOrder,
  GENERATIONS,
  listedPrompts,
  promptText,
  useServerEnv,
} from '@polymodal/mcp-common/testing';
import { describe, expect, it } from 'vitest';
import { createServer } from '../src/server.js';

const { env } = useServerEnv({ name: 'mcp-media-prompts-', sandbox: false });

function connect(generation: (typeof GENERATIONS)[number]) {
  return connectInProcess(generation, createServer, { env, secrets: [] });
}

describe.each(GENERATIONS)('the media prompts, %s', (generation) => {
  it('lists make_video, video_flashcards and speak_text, each described, with its arguments in order', async () => {
    const server = await connect(generation);
    try {
      const { prompts, argumentsOf } = await listedPrompts(server.client);
      expect(argumentsOf).toEqual({
        make_video: [
          ['model', false],
          ['idea', false],
        ],
        video_flashcards: [
          ['video', true],
          ['direction', true],
        ],
        speak_text: [
          ['voice', false],
          ['language', false],
          ['text', false],
        ],
      });
      for (const prompt of prompts) expect(prompt.description, prompt.name).toMatch(/credits/);
    } finally {
      await server.close();
    }
  });

  it('gets video_flashcards as create, then wait, with the values quoted', async () => {
    const server = await connect(generation);
    try {
      const video = 'https://www.youtube.com/watch?v=abc&t=1';
      const text = await promptText(server.client, 'video_flashcards', {
        video,
        direction: 'thai_to_chinese',
      });
      expectInOrder(text, ['create_flashcards', 'get_flashcards']);
      expect(text).toContain(JSON.stringify({ video, learningDirection: 'thai_to_chinese' }));
      // A video file on the web is said to be one; a local file, like a YouTube link, needs nothing.
      const direct = 'https://cdn.example.com/lesson.mp4';
      expect(
        await promptText(server.client, 'video_flashcards', { video: direct, direction: 'thai_to_chinese' }),
      ).toContain(
        JSON.stringify({
          video: direct,
          learningDirection: 'thai_to_chinese',
          sourceType: 'direct_video_url',
        }),
      );
      expect(
        await promptText(server.client, 'video_flashcards', {
          video: 'lessons/week1.mp4',
          direction: 'thai_to_chinese',
        }),
      ).toContain(JSON.stringify({ video: 'lessons/week1.mp4', learningDirection: 'thai_to_chinese' }));
      expect(text).toMatch(/done=false/);
    } finally {
      await server.close();
    }
  });

  it('gets make_video as catalog, generate, then wait, asking for what is not given', async () => {
    const server = await connect(generation);
    try {
      const given = await promptText(server.client, 'make_video', {
        model: 'hub:text-to-video-lite',
        idea: 'a paper boat at sunrise',
      });
      expectInOrder(given, ['list_video_models', 'generate_video', 'get_video_job']);
      expect(given).toContain(
        JSON.stringify({ model: 'hub:text-to-video-lite', prompt: 'a paper boat at sunrise' }),
      );
      expect(given).not.toMatch(/ask me/);

      const asked = await promptText(server.client, 'make_video', {});
      expectInOrder(asked, [
        'ask me what the video should show',
        'list_video_models',
        'pick',
        'generate_video',
      ]);
    } finally {
      await server.close();
    }
  });

  it('gets speak_text with the text quoted, or asking for the text when none is given', async () => {
    const server = await connect(generation);
    try {
      const given = await promptText(server.client, 'speak_text', { language: 'th', text: 'สวัสดี "ครับ"' });
      expectInOrder(given, ['synthesize_speech', 'get_speech']);
      expect(given).toContain(JSON.stringify({ text: 'สวัสดี "ครับ"', language: 'th' }));
      expect(given).not.toMatch(/ask me for the text/);

      // A host that asks in a form may send a skipped argument as "": the text is then asked for.
      const asked = await promptText(server.client, 'speak_text', { voice: 'voices/anna.wav', text: '' });
      expectInOrder(asked, ['ask me for the text', 'synthesize_speech', 'get_speech']);
      expect(asked).toContain(JSON.stringify({ voice: 'voices/anna.wav' }));
    } finally {
      await server.close();
    }
  });
});
