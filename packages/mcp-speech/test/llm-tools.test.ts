/**
 * The shared LLM tools through an MCP client, against the sandbox over loopback; and once through the
 * built bin over stdio, as a desktop host runs it.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createReadingRecording, SAMPLE_READING_TEXT, type Sandbox } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SpeechHarness, startSpeechHarness } from './harness.js';

let harness: SpeechHarness;
let sandbox: Sandbox;
let root: string;
let env: Record<string, string>;

beforeAll(async () => {
  harness = await startSpeechHarness();
  ({ sandbox, root, env } = harness);
});
afterAll(() => harness.close());

describe('shared LLM tools', () => {
  it('lists models and asks one, by prompt and by messages, with correct annotations', async () => {
    const session = await harness.connect();
    try {
      const { tools } = await session.client.listTools();
      const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
      expect(byName.list_llm_models?.annotations).toMatchObject({ readOnlyHint: true });
      expect(byName.ask_llm?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
      expect(byName.ask_llm?.outputSchema).toBeDefined();

      const models = await session.call('list_llm_models');
      expect(models.structured).toEqual({
        models: [{ id: 'sandbox-planner-1', ownedBy: 'polymodal-sandbox' }],
        count: 1,
      });

      const asked = await session.call('ask_llm', {
        prompt: 'Translate "good morning" into Thai',
        temperature: 0,
      });
      expect(asked.isError, asked.text).toBe(false);
      expect(asked.structured).toMatchObject({ model: 'sandbox-planner-1', finishReason: 'stop' });
      expect(asked.structured.text).toContain('Translate "good morning" into Thai');

      const conversation = await session.call('ask_llm', {
        model: 'sandbox-planner-1',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'first question' },
          { role: 'assistant', content: 'first answer' },
          { role: 'user', content: 'second question' },
        ],
      });
      expect(conversation.structured.text).toContain('4 message(s)');
      expect(conversation.structured.text).toContain('second question');
      expect(sandbox.control.counters().llmCompletions?.[sandbox.users[0]!.id]).toBe(2);
    } finally {
      await session.close();
    }
  });

  it('refuses bad input before any call, and reports platform errors an agent can act on', async () => {
    const session = await harness.connect();
    try {
      const before = sandbox.control.counters().llmCompletions?.[sandbox.users[0]!.id] ?? 0;
      const both = await session.call('ask_llm', { prompt: 'x', messages: [{ role: 'user', content: 'y' }] });
      expect(both.isError).toBe(true);
      expect(both.text).toMatch(/either "prompt" or "messages"/);
      const neither = await session.call('ask_llm', {});
      expect(neither.isError).toBe(true);
      expect(sandbox.control.counters().llmCompletions?.[sandbox.users[0]!.id] ?? 0).toBe(before);

      const unknown = await session.call('ask_llm', { prompt: 'x', model: 'no-such-model' });
      expect(unknown.isError).toBe(true);
      expect(unknown.text).toMatch(/404/);
      expect(unknown.text).toMatch(/models/);
    } finally {
      await session.close();
    }
    const revoked = await harness.connect({ POLYMODAL_API_KEY: sandbox.keys.revoked as string });
    try {
      const denied = await revoked.call('list_llm_models');
      expect(denied.isError).toBe(true);
      expect(denied.text).toMatch(/401/);
      expect(denied.text).toContain('POLYMODAL_API_KEY');
      expect(denied.text).not.toContain(sandbox.keys.revoked as string);
    } finally {
      await revoked.close();
    }
  });

  it('answers and scores a reading over stdio from the built bin', async () => {
    const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    if (!existsSync(bin))
      throw new Error('Build first: pnpm turbo run build --filter=@polymodal/mcp-speech...');
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [bin],
        env: { PATH: process.env.PATH ?? '', ...(env as Record<string, string>) },
        stderr: 'pipe',
      }),
    );
    try {
      const result = (await client.callTool({
        name: 'ask_llm',
        arguments: { prompt: 'hello over stdio' },
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as { text: string }).text).toContain('hello over stdio');
      const student = path.join(root, 'stdio-reading.wav');
      await writeFile(student, createReadingRecording({ attempts: ['ฉันชอบเขียนหนังสือที่ห้องสมุด'] }));
      const reading = (await client.callTool({
        name: 'score_reading',
        arguments: { studentAudioPath: student, referenceText: SAMPLE_READING_TEXT },
      })) as CallToolResult;
      expect(reading.isError).toBeFalsy();
      expect(reading.structuredContent).toMatchObject({
        correctWords: 6,
        feedback: { substitutions: [{ expected: 'อ่าน', actual: 'เขียน' }] },
      });
    } finally {
      await client.close();
    }
  });
});
