import { describe, expect, it } from 'vitest';
import type { ConnectedServer } from './servers.js';
import { prepareTask } from './task-prompts.js';

/** A connected server that lists `prompts` and answers prompts/get with one message naming its arguments. */
function serverWith(name: string, prompts: string[], content?: Record<string, unknown>): ConnectedServer {
  const client = {
    getServerCapabilities: () => (prompts.length > 0 ? { prompts: {} } : {}),
    listPrompts: async () => ({ prompts: prompts.map((prompt) => ({ name: prompt })) }),
    getPrompt: async ({
      name: prompt,
      arguments: args,
    }: {
      name: string;
      arguments: Record<string, string>;
    }) => ({
      messages: [
        {
          role: 'user',
          content: content ?? { type: 'text', text: `${prompt} from ${name}: ${JSON.stringify(args)}` },
        },
      ],
    }),
  };
  return {
    name,
    client: client as unknown as ConnectedServer['client'],
    protocolVersion: '2026-07-28',
    era: 'modern',
    close: async () => {},
  };
}

describe('prepareTask', () => {
  it("fetches each prompt from the server that lists it, keeping the parts' order with the words between", async () => {
    const servers = [serverWith('meeting', ['meeting_minutes']), serverWith('speech', ['thai_transcript'])];
    const task = await prepareTask(
      [
        { prompt: 'thai_transcript', arguments: { recording: '/m/t.wav' } },
        { words: 'Also export the transcript.' },
        { prompt: 'meeting_minutes', arguments: { recording: '/m/a.wav' } },
      ],
      servers,
    );
    expect(task.messages).toEqual([
      { role: 'user', content: 'thai_transcript from speech: {"recording":"/m/t.wav"}' },
      { role: 'user', content: 'Also export the transcript.' },
      { role: 'user', content: 'meeting_minutes from meeting: {"recording":"/m/a.wav"}' },
    ]);
    expect(task.parts).toEqual([
      { prompt: 'thai_transcript', server: 'speech', arguments: { recording: '/m/t.wav' } },
      { words: 'Also export the transcript.' },
      { prompt: 'meeting_minutes', server: 'meeting', arguments: { recording: '/m/a.wav' } },
    ]);
    expect(task.text).toBe(task.messages.map((message) => message.content).join('\n\n'));
  });

  it('refuses a prompt no server lists, and a prompt whose message is not text', async () => {
    await expect(
      prepareTask(
        [{ prompt: 'video_flashcards', arguments: {} }],
        [serverWith('meeting', ['meeting_minutes'])],
      ),
    ).rejects.toThrow('No server offers the prompt video_flashcards');
    const imaging = serverWith('media', ['show_image'], { type: 'image', data: '', mimeType: 'image/png' });
    await expect(prepareTask([{ prompt: 'show_image', arguments: {} }], [imaging])).rejects.toThrow(
      "sent image content; the demo's agent reads text only",
    );
  });
});
