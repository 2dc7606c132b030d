/**
 * Prompts as the installer registers them: those whose tools are all offered on the server instance (so a
 * server that keeps fewer tools keeps fewer prompts), listed with their group's icons and arguments, got with
 * the group's dependencies and checked arguments; none kept, no `prompts` capability declared.
 */
import { createFileAccess } from '@polymodal/core/files';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { connectClient, serverWithTools } from '../../test/support/test-tools.js';
import { definePrompt, quoted, userMessage } from '../prompts/define-prompt.js';
import { defineTool, type Tool, type ToolGroup, toolGroup } from '../tools/define-tool.js';
import type { ToolInstallation } from './sdk-server.js';
import { svgIcon } from './tool-list-json.js';

const BLUE = svgIcon(
  "<svg xmlns='http://www.w3.org/2000/svg'><rect width='1' height='1' fill='blue'/></svg>",
);

interface Deps {
  greeting: string;
}

function tool(name: string, options: { readOnly?: boolean; appOnly?: boolean } = {}): Tool<Deps> {
  return defineTool({
    name,
    title: name,
    description: `The ${name} tool.`,
    inputSchema: {},
    annotations: { readOnlyHint: options.readOnly === true },
    ...(options.appOnly ? { appOnly: true } : {}),
    handler: () => async () => ({ content: [] }),
  });
}

const greet = definePrompt({
  name: 'greet_person',
  title: 'Greet a person',
  description: 'Greets a person by name, then reads back.',
  uses: ['start', 'read'],
  args: {
    name: z.string().min(1).describe('Who to greet.'),
    mood: z.enum(['warm', 'dry']).optional().describe('How.'),
  },
  messages: ({ name, mood }, deps: Deps) => [
    userMessage(`${deps.greeting}: call start with ${quoted({ name, mood })}, then read.`),
  ],
});

const viewOnly = definePrompt<Deps>({
  name: 'view_only',
  title: 'Uses a tool only views call',
  description: 'Calls the app-only tool.',
  uses: ['page'],
  args: {},
  messages: () => [userMessage('call page')],
});

function group(tools: readonly Tool<Deps>[], prompts = [greet, viewOnly]): ToolGroup {
  return toolGroup({ icons: [BLUE], tools, prompts, deps: () => ({ greeting: 'Hello' }) });
}

const TOOLS = [tool('start'), tool('read', { readOnly: true }), tool('page', { appOnly: true })];

async function connect(groups: readonly ToolGroup[], options: { keep?: ToolInstallation['keep'] } = {}) {
  return connectClient(
    serverWithTools({
      groups,
      files: createFileAccess({ allowedDirs: [], outputDir: '/nonexistent-output-dir' }),
      ...options,
    }),
  );
}

describe('installTools with prompts', () => {
  it('lists a prompt whose tools are all offered, with its arguments and the group icons', async () => {
    const client = await connect([group(TOOLS)]);
    expect(client.getServerCapabilities()?.prompts).toEqual({ listChanged: false });
    const { prompts } = await client.listPrompts();
    // view_only calls a tool only views call: a prompt is for the model, which never sees that tool.
    expect(prompts).toEqual([
      {
        name: 'greet_person',
        title: 'Greet a person',
        description: 'Greets a person by name, then reads back.',
        arguments: [
          { name: 'name', description: 'Who to greet.', required: true },
          { name: 'mood', description: 'How.', required: false },
        ],
        icons: [BLUE],
      },
    ]);
  });

  it('gets the message with the group dependencies, after checking the arguments', async () => {
    const client = await connect([group(TOOLS)]);
    const { messages } = await client.getPrompt({ name: 'greet_person', arguments: { name: 'Ann "A"' } });
    expect(messages).toEqual([
      {
        role: 'user',
        content: { type: 'text', text: 'Hello: call start with {"name":"Ann \\"A\\""}, then read.' },
      },
    ]);
    await expect(
      client.getPrompt({ name: 'greet_person', arguments: { name: 'Ann', mood: 'angry' } }),
    ).rejects.toThrow(/greet_person/);
  });

  it('keeps no prompt whose tool the server leaves out, and then declares no prompts capability', async () => {
    const client = await connect([group(TOOLS)], { keep: (spec) => spec.annotations.readOnlyHint === true });
    expect(client.getServerCapabilities()?.prompts).toBeUndefined();
    expect(client.getServerCapabilities()?.tools).toBeDefined();
  });

  it('refuses two kept prompts of one name', async () => {
    await expect(connect([group(TOOLS), group([], [greet])])).rejects.toThrow(
      'Prompt greet_person is listed twice',
    );
  });
});

describe('definePrompt', () => {
  it('refuses a name that is not snake_case and a prompt that uses no tool', () => {
    const source = { title: 'T', description: 'D.', args: {}, messages: () => [] };
    expect(() => definePrompt({ ...source, name: 'Greet-Person', uses: ['start'] })).toThrow(/snake_case/);
    expect(() => definePrompt({ ...source, name: 'greet', uses: [] })).toThrow(/names no tool/);
  });

  it('builds the argument object once per field map', () => {
    const args = { name: z.string() };
    const source = { title: 'T', description: 'D.', uses: ['start'], args, messages: () => [] };
    expect(definePrompt({ ...source, name: 'one' }).args).toBe(definePrompt({ ...source, name: 'two' }).args);
  });
});
