/**
 * The speech server's prompts as a person's host sees them, on both protocol generations: listed with their
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

const { env } = useServerEnv({ name: 'mcp-speech-prompts-', sandbox: false });

function connect(generation: (typeof GENERATIONS)[number]) {
  return connectInProcess(generation, createServer, { env, secrets: [] });
}

describe.each(GENERATIONS)('the speech prompts, %s', (generation) => {
  it('lists check_thai_reading and thai_transcript, each described, with its arguments in order', async () => {
    const server = await connect(generation);
    try {
      const { prompts, argumentsOf } = await listedPrompts(server.client);
      expect(argumentsOf).toEqual({
        check_thai_reading: [
          ['recording', true],
          ['referenceText', false],
        ],
        thai_transcript: [['recording', true]],
      });
      for (const prompt of prompts) expect(prompt.description, prompt.name).toMatch(/Thai/);
    } finally {
      await server.close();
    }
  });

  it('gets check_thai_reading as score, then wait, asking for the text when none is given', async () => {
    const server = await connect(generation);
    try {
      const recording = 'students/nok.wav';
      const given = await promptText(server.client, 'check_thai_reading', {
        recording,
        referenceText: 'ฉันอ่านหนังสือ',
      });
      expectInOrder(given, ['score_reading', 'get_reading_score']);
      expect(given).toContain(JSON.stringify({ studentAudioPath: recording, referenceText: 'ฉันอ่านหนังสือ' }));
      expect(given).not.toMatch(/ask me for/);

      const asked = await promptText(server.client, 'check_thai_reading', { recording });
      expectInOrder(asked, ['ask me for the Thai text', 'score_reading', 'get_reading_score']);
      expect(asked).toContain(JSON.stringify({ studentAudioPath: recording }));
    } finally {
      await server.close();
    }
  });

  it('gets thai_transcript as one transcribe_thai call with the path quoted', async () => {
    const server = await connect(generation);
    try {
      const text = await promptText(server.client, 'thai_transcript', { recording: 'C:\\rec\\lesson 1.wav' });
      expect(text).toContain(
        `transcribe_thai with ${JSON.stringify({ audioPath: 'C:\\rec\\lesson 1.wav' })}`,
      );
      expect(text).toMatch(/complete=false/);
    } finally {
      await server.close();
    }
  });
});
