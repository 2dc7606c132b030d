/**
 * Completion as the installer answers it: declared with the prompts (and not without), an enum argument
 * completed with its values, a prompt's own source run with the group's dependencies and the arguments
 * already given, an unknown or left-out prompt refused in the SDK's words, a failing source answered with
 * nothing (and logged), never more than 100 values. The saved outputs' template completes the outputs' names.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createFileAccess } from '@polymodal/core/files';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { completionOf } from '../../test/support/prompts.js';
import { connectClient, serverWithTools } from '../../test/support/test-tools.js';
import { definePrompt, userMessage } from '../prompts/define-prompt.js';
import { defineTool, type Tool, toolGroup } from '../tools/define-tool.js';
import type { ToolInstallation } from './sdk-server.js';

interface Deps {
  colours: readonly string[];
}

function tool(name: string, readOnly = false): Tool<Deps> {
  return defineTool({
    name,
    title: name,
    description: `The ${name} tool.`,
    inputSchema: {},
    annotations: { readOnlyHint: readOnly },
    handler: () => async () => ({ content: [] }),
  });
}

const paint = definePrompt<Deps>({
  name: 'paint_room',
  title: 'Paint a room',
  description: 'Paints a room.',
  uses: ['paint', 'look'],
  args: {
    room: z.enum(['kitchen', 'Kids room', 'hall']).describe('Which room.'),
    colour: z.string().describe('The colour.'),
    shade: z.string().optional().describe('How light.'),
    note: z.string().optional().describe('Anything else.'),
    many: z.string().optional().describe('A long list.'),
  },
  complete: {
    // The group's colours, narrowed by the room already given.
    colour: ({ value, deps, arguments: given }) => ({
      values: deps.colours.filter(
        (colour) => colour.startsWith(value) && (given.room !== 'hall' || colour !== 'pink'),
      ),
    }),
    shade: () => {
      throw new Error('the shade chart is at /srv/private/chart.json');
    },
    many: () => ({ values: Array.from({ length: 150 }, (_, index) => `item-${index}`) }),
  },
  messages: ({ room }) => [userMessage(`paint the ${room}`)],
});

const TOOLS = [tool('paint'), tool('look', true)];
let output: string;

beforeAll(async () => {
  output = await mkdtemp(path.join(os.tmpdir(), 'completion-outputs-'));
  await writeFile(path.join(output, 'kitchen-plan.md'), '# plan');
  await writeFile(path.join(output, 'hall-photo.png'), 'png');
});

afterAll(async () => {
  await rm(output, { recursive: true, force: true });
});

async function connect(options: { keep?: ToolInstallation['keep']; warnings?: unknown[][] } = {}) {
  return connectClient(
    serverWithTools({
      groups: [
        toolGroup({ tools: TOOLS, prompts: [paint], deps: () => ({ colours: ['pink', 'plum', 'teal'] }) }),
      ],
      files: createFileAccess({ allowedDirs: [os.tmpdir()], outputDir: output }),
      ...(options.keep ? { keep: options.keep } : {}),
      ...(options.warnings ? { log: { warning: (...line: unknown[]) => options.warnings?.push(line) } } : {}),
    }),
  );
}

describe('completion/complete, answered by the installer', () => {
  it('is declared with the prompts, and not by a server that keeps none', async () => {
    expect((await connect()).getServerCapabilities()?.completions).toEqual({});
    const readOnly = await connect({ keep: (spec) => spec.annotations.readOnlyHint === true });
    expect(readOnly.getServerCapabilities()?.completions).toBeUndefined();
    expect(readOnly.getServerCapabilities()?.prompts).toBeUndefined();
  });

  it('completes an enum argument with its values, whatever the letter case typed', async () => {
    const client = await connect();
    expect(await completionOf(client, 'paint_room', 'room', '')).toEqual({
      values: ['kitchen', 'Kids room', 'hall'],
      hasMore: false,
    });
    expect((await completionOf(client, 'paint_room', 'room', 'k')).values).toEqual(['kitchen', 'Kids room']);
    expect((await completionOf(client, 'paint_room', 'room', 'KI')).values).toEqual(['kitchen', 'Kids room']);
  });

  it("runs the prompt's source with the group's dependencies and the arguments already given", async () => {
    const client = await connect();
    expect((await completionOf(client, 'paint_room', 'colour', 'p')).values).toEqual(['pink', 'plum']);
    expect((await completionOf(client, 'paint_room', 'colour', 'p', { room: 'hall' })).values).toEqual([
      'plum',
    ]);
  });

  it('offers nothing for an argument without a source', async () => {
    const client = await connect();
    expect(await completionOf(client, 'paint_room', 'note', 'a')).toEqual({ values: [], hasMore: false });
  });

  it('answers a failing source with nothing, and tells the log but not the caller', async () => {
    const warnings: unknown[][] = [];
    const client = await connect({ warnings });
    expect(await completionOf(client, 'paint_room', 'shade', '')).toEqual({ values: [], hasMore: false });
    expect(JSON.stringify(warnings)).toContain('/srv/private/chart.json');
  });

  it('sends at most 100 values and says there are more', async () => {
    const client = await connect();
    const { values, hasMore } = await completionOf(client, 'paint_room', 'many', '');
    expect(values).toEqual(Array.from({ length: 100 }, (_, index) => `item-${index}`));
    expect(hasMore).toBe(true);
  });

  it("refuses a prompt it does not offer as the SDK does (-32602, 'Prompt … not found')", async () => {
    const client = await connect();
    await expect(completionOf(client, 'no_such_prompt', 'room', '')).rejects.toMatchObject({
      code: -32602,
      message: 'Prompt no_such_prompt not found',
    });
  });

  it("completes the saved outputs' names in their template, and refuses an unknown template", async () => {
    const client = await connect();
    const outputs = await client.complete({
      ref: { type: 'ref/resource', uri: 'polymodal://outputs/{name}' },
      argument: { name: 'name', value: 'kit' },
    });
    expect(outputs.completion.values).toEqual(['kitchen-plan.md']);
    await expect(
      client.complete({
        ref: { type: 'ref/resource', uri: 'polymodal://elsewhere/{name}' },
        argument: { name: 'name', value: '' },
      }),
    ).rejects.toMatchObject({
      code: -32602,
      message: 'Resource template polymodal://elsewhere/{name} not found',
    });
  });
});
