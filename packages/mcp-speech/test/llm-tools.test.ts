/**
 * The shared LLM tools through an MCP client, against the sandbox over loopback; and once through the
 * built bin over stdio, as a desktop host runs it.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createReadingRecording, SAMPLE_READING_TEXT, type Sandbox, startSandbox } from '@polymodal/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../src/server.js';

let sandbox: Sandbox;
let root: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  sandbox = await startSandbox();
  root = await mkdtemp(path.join(os.tmpdir(), 'mcp-speech-'));
  env = {
    POLYMODAL_BASE_URL: sandbox.url,
    POLYMODAL_API_KEY: sandbox.apiKey,
    POLYMODAL_STATE_DIR: path.join(root, 'state'),
    POLYMODAL_OUTPUT_DIR: path.join(root, 'out'),
    POLYMODAL_ALLOWED_DIRS: root,
    POLYMODAL_LOG_LEVEL: 'error',
  };
});
afterAll(async () => {
  await sandbox.close();
  await rm(root, { recursive: true, force: true });
});

async function connect(serverEnv: NodeJS.ProcessEnv) {
  const instance = createServer({ env: serverEnv });
  const client = new Client({ name: 'test', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await instance.server.connect(serverSide);
  await client.connect(clientSide);
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    expect(JSON.stringify(result)).not.toContain(sandbox.apiKey);
    const text = result.content.map((item) => (item.type === 'text' ? item.text : '')).join('\n');
    return {
      isError: result.isError === true,
      text,
      structured: result.structuredContent as Record<string, any>,
    };
  };
  return {
    client,
    call,
    close: async () => {
      await client.close();
      await instance.cleanup();
    },
  };
}

describe('shared LLM tools', () => {
  it('lists models and asks one, by prompt and by messages, with correct annotations', async () => {
    const session = await connect(env);
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
    const session = await connect(env);
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
    const revoked = await connect({ ...env, POLYMODAL_API_KEY: sandbox.keys.revoked as string });
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
