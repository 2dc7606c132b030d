/**
 * The shared LLM tools through an MCP client, against the sandbox over loopback (including a model that
 * answers only after the call's deadline); and once through the built bin over stdio, as a desktop host
 * runs it.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createReadingRecording, SAMPLE_READING_TEXT, type Sandbox } from '@polymodal/sandbox';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectWithDeadline, type SpeechHarness, startSpeechHarness } from './support/harness.js';

let harness: SpeechHarness;
let sandbox: Sandbox;
let root: string;
let env: Record<string, string>;

beforeAll(async () => {
  harness = await startSpeechHarness();
  ({ sandbox, root, env } = harness);
});
afterAll(() => harness.close());
afterEach(() => sandbox.control.clearFaults());

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
      expect(unknown.text).toMatch(/model 'no-such-model' was not found/);
      // What the platform said, and what to call next; nothing about jobs, which the LLM has none of.
      expect(unknown.text).toContain('platform said: model no-such-model not found');
      expect(unknown.text).toContain('Call list_llm_models');
      expect(unknown.text).not.toMatch(/\bjobs?\b/i);
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

  it('answers within its deadline, with what to do next, when the model answers only after 75 s', async () => {
    sandbox.control.setFaults([
      { match: { method: 'POST', path: '/chat/completions$' }, kind: 'latency', latencyMs: 75_000 },
    ]);
    const session = await connectWithDeadline(harness, 2);
    const completionsBefore = sandbox.control.requests({ method: 'POST', path: '/chat/completions$' }).length;
    try {
      const started = Date.now();
      const slow = await session.call('ask_llm', { prompt: 'a slow question', model: 'sandbox-planner-1' });
      const elapsed = Date.now() - started;
      expect(slow.isError).toBe(true);
      expect(slow.text).toMatch(/did not answer within 2 s/);
      expect(slow.text).toMatch(/was not sent again/);
      expect(slow.text).toContain('list_llm_models');
      // The tool's deadline (2 s) plus what a result may take to come back on a busy machine; the platform
      // would have held the call 75 s.
      expect(elapsed).toBeLessThan(7_000);
      // The completion reached the platform once and was not repeated.
      expect(sandbox.control.requests({ method: 'POST', path: '/chat/completions$' })).toHaveLength(
        completionsBefore + 1,
      );
    } finally {
      await session.close();
    }
  });

  it('answers within its deadline when the model list hangs', async () => {
    sandbox.control.setFaults([{ match: { method: 'GET', path: '/llm/v1/models$' }, kind: 'hang' }]);
    const session = await connectWithDeadline(harness, 2);
    const listsBefore = sandbox.control.requests({ method: 'GET', path: '/llm/v1/models$' }).length;
    try {
      const started = Date.now();
      const listed = await session.call('list_llm_models', {});
      // The deadline (2 s) plus a busy machine's delays; the hanging list would never answer.
      expect(Date.now() - started).toBeLessThan(7_000);
      expect(listed.isError).toBe(true);
      expect(listed.text).toMatch(/did not answer within 2 s/);
      // One hanging GET, not one per retry.
      expect(sandbox.control.requests({ method: 'GET', path: '/llm/v1/models$' })).toHaveLength(
        listsBefore + 1,
      );
    } finally {
      await session.close();
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
