/**
 * The meeting server's prompts as a person's host sees them, on both protocol generations: listed with their
 * arguments in the order a host asks for them, and got as one message that names the tools to call in order
 * with the person's values quoted. Listing and getting a prompt calls nothing: the platform is a closed port.
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

const { env } = useServerEnv({ name: 'mcp-meeting-prompts-', sandbox: false });

function connect(generation: (typeof GENERATIONS)[number]) {
  return connectInProcess(generation, createServer, { env, secrets: [] });
}

describe.each(GENERATIONS)('the meeting prompts, %s', (generation) => {
  it('lists meeting_minutes and translate_meeting, each described, with its arguments in order', async () => {
    const server = await connect(generation);
    try {
      const { prompts, argumentsOf } = await listedPrompts(server.client);
      expect(prompts.map((prompt) => prompt.name)).toEqual(['meeting_minutes', 'translate_meeting']);
      expect(argumentsOf).toEqual({
        meeting_minutes: [
          ['recording', true],
          ['language', false],
          ['minutesLanguage', false],
          ['title', false],
        ],
        translate_meeting: [
          ['jobId', true],
          ['targetLanguage', true],
        ],
      });
      for (const prompt of prompts) {
        expect(prompt.title, prompt.name).toBeTruthy();
        expect(prompt.description, prompt.name).toMatch(/\w{10}/);
        expect(prompt.icons?.length, prompt.name).toBe(1);
        for (const argument of prompt.arguments ?? [])
          expect(argument.description, argument.name).toBeTruthy();
      }
    } finally {
      await server.close();
    }
  });

  it('gets meeting_minutes as the steps summarize, wait, export, with the values quoted', async () => {
    const server = await connect(generation);
    try {
      const recording = '/recordings/weekly "sync".mp4';
      const text = await promptText(server.client, 'meeting_minutes', { recording, minutesLanguage: 'th' });
      expectInOrder(text, ['summarize_meeting', 'get_meeting', 'export_meeting']);
      expect(text).toContain(JSON.stringify({ path: recording, targetLanguage: 'th' }));
      const titled = await promptText(server.client, 'meeting_minutes', { recording, title: 'Q3 "plan"' });
      expect(titled).toContain(JSON.stringify({ path: recording, title: 'Q3 "plan"' }));
      expect(text).toMatch(/done=false/);
      expect(text).toMatch(/paid twice/);

      const translate = await promptText(server.client, 'translate_meeting', {
        jobId: 'job-1',
        targetLanguage: 'de',
      });
      expectInOrder(translate, ['retranslate_meeting', 'get_meeting', 'export_meeting']);
      expect(translate).toContain(JSON.stringify({ jobId: 'job-1', targetLanguage: 'de' }));
    } finally {
      await server.close();
    }
  });

  it('refuses a missing or unknown argument value and an unknown prompt', async () => {
    const server = await connect(generation);
    try {
      await expect(
        server.client.getPrompt({ name: 'translate_meeting', arguments: { jobId: 'job-1' } }),
      ).rejects.toThrow(/translate_meeting/);
      await expect(
        server.client.getPrompt({
          name: 'meeting_minutes',
          arguments: { recording: 'a.mp4', language: 'klingon' },
        }),
      ).rejects.toThrow(/meeting_minutes/);
      await expect(server.client.getPrompt({ name: 'no_such_prompt', arguments: {} })).rejects.toThrow(
        /Prompt no_such_prompt not found/,
      );
    } finally {
      await server.close();
    }
  });
});
