import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { createFileAccess } from '@polymodal/core/files';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type Tool, type ToolGroup, toolGroup } from '../tools/define-tool.js';
import type { ToolDeps } from '../tools/tool-deps.js';
import { createSdkServer, installTools, type ToolInstallation } from './sdk-server.js';
import { svgIcon } from './tool-list-json.js';

const RED = svgIcon("<svg xmlns='http://www.w3.org/2000/svg'><rect width='1' height='1' fill='red'/></svg>");

const boundedInput = {
  count: z.number().int().min(1),
  seed: z.number().int(),
  tags: z.record(z.string(), z.string()),
  list: z
    .string()
    .transform((value) => value.split(','))
    .optional(),
  waitSeconds: z.number().int().min(0).max(50).default(40),
};
const boundedOutput = z.looseObject({ total: z.number().int().max(10), when: z.string().optional() });

/** Tools whose calls are noted in `calls`, and whose deps are the test's own. */
interface Deps {
  calls: string[];
}

const bounded = defineTool({
  name: 'bounded',
  title: 'Bounded',
  description: 'Has bounds.',
  inputSchema: boundedInput,
  outputSchema: boundedOutput,
  annotations: { readOnlyHint: false, openWorldHint: true },
  handler: (deps: Deps) => async (args) => {
    deps.calls.push(`bounded ${args.count}`);
    return { content: [{ type: 'text', text: 'ok' }], structuredContent: { total: 3, extra: true } };
  },
});

const reading = defineTool({
  name: 'reading',
  title: 'Reading',
  description: (seconds) => `Reads for up to ${seconds} s.`,
  inputSchema: { id: z.string().min(1) },
  annotations: { readOnlyHint: true },
  handler:
    (deps: Deps) =>
    async ({ id }) => {
      deps.calls.push(`reading ${id}`);
      return { content: [{ type: 'text', text: id }], structuredContent: { done: false } };
    },
});

function group(tools: readonly Tool<Deps>[], deps: Deps, icons?: readonly (typeof RED)[]): ToolGroup {
  return toolGroup({ ...(icons ? { icons } : {}), tools, deps: () => deps });
}

async function connect(server: McpServer): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return client;
}

function install(groups: readonly ToolGroup[], options: Partial<ToolInstallation> = {}): McpServer {
  const server = createSdkServer({ name: 'test', title: 'Test', version: '1.0.0', instructions: '' });
  installTools(server, {
    server: { name: 'test', version: '1.0.0' },
    groups,
    // The groups here build their own deps; the common context is read only for the tool deadline.
    common: { toolDeadlineSeconds: 42 } as ToolDeps,
    keep: () => true,
    metrics: { toolCall: () => undefined },
    loadPlatformClient: () => Promise.resolve(),
    files: createFileAccess({ allowedDirs: [], outputDir: '/nonexistent-output-dir' }),
    log: { warning: () => undefined },
    ...options,
  });
  return server;
}

describe('installTools', () => {
  it('lists each tool as the SDK describes it, with draft-7 schemas trimmed of vacuous keywords', async () => {
    const deps: Deps = { calls: [] };
    const client = await connect(install([group([bounded, reading], deps)]));
    const { tools } = await client.listTools();

    // The same tools registered on a bare McpServer, as the SDK lists them.
    const bare = new McpServer({ name: 'bare', version: '1.0.0' });
    bare.registerTool(
      'bounded',
      {
        title: 'Bounded',
        description: 'Has bounds.',
        inputSchema: boundedInput,
        outputSchema: boundedOutput,
        annotations: { title: 'Bounded', readOnlyHint: false, openWorldHint: true },
      },
      async () => ({ content: [] }),
    );
    bare.registerTool(
      'reading',
      {
        title: 'Reading',
        description: 'Reads for up to 42 s.',
        inputSchema: z.object({ id: z.string().min(1) }),
        annotations: { title: 'Reading', readOnlyHint: true },
      },
      async () => ({ content: [] }),
    );
    const sdk = (await (await connect(bare)).listTools()).tools;
    const described = ({ inputSchema, outputSchema, ...tool }: (typeof tools)[number]) => tool;
    expect(tools.map(described)).toEqual(sdk.map(described));
    // The schemas as the lists hosts have cached were made (draft-7, SDK 1.x's conversion): SDK 2.x would
    // send 2020-12 with the integer bounds spelled out, bytes every model reads on every turn.
    for (const tool of tools) {
      expect(tool.inputSchema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    }
    expect(tools[0]?.inputSchema.properties?.count).toEqual({ type: 'integer', minimum: 1 });
    expect(tools[0]?.inputSchema.properties?.seed).toEqual({ type: 'integer' });
    expect(tools[0]?.outputSchema?.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(sdk[0]?.inputSchema.properties?.count).not.toEqual({ type: 'integer', minimum: 1 });
  });

  it("lists each tool with its own group's icons, and a group without icons with none", async () => {
    const deps: Deps = { calls: [] };
    const client = await connect(install([group([bounded], deps, [RED]), group([reading], deps)]));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => [tool.name, tool.icons])).toEqual([
      ['bounded', [RED]],
      ['reading', undefined],
    ]);
  });

  it('installs only the tools kept, and a tool left out cannot be called', async () => {
    const deps: Deps = { calls: [] };
    const client = await connect(
      install([group([bounded, reading], deps)], { keep: (spec) => spec.annotations.readOnlyHint === true }),
    );
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['reading']);
    // The SDK's answer to a tool it does not know: a protocol error, and the server keeps serving.
    await expect(
      client.callTool({ name: 'bounded', arguments: { count: 1, seed: 1, tags: {} } }),
    ).rejects.toThrow(/Tool bounded not found/);
    expect(deps.calls).toEqual([]);
    await client.callTool({ name: 'reading', arguments: { id: 'a' } });
    expect(deps.calls).toEqual(['reading a']);
  });

  it('refuses a list that names a tool twice', () => {
    const deps: Deps = { calls: [] };
    expect(() => install([group([reading], deps), group([reading], deps)])).toThrow(
      /reading is listed twice/,
    );
  });

  it('checks arguments against the input schema before the handler runs', async () => {
    const deps: Deps = { calls: [] };
    const client = await connect(install([group([reading], deps)]));
    const refused = await client.callTool({ name: 'reading', arguments: { id: '' } });
    expect(refused.isError).toBe(true);
    expect(deps.calls).toEqual([]);
  });

  it('loads the platform client before each call, and counts each call with how its result reads', async () => {
    const deps: Deps = { calls: [] };
    const seen: string[] = [];
    const client = await connect(
      install([group([bounded, reading], deps)], {
        loadPlatformClient: async () => {
          seen.push(`load (calls so far: ${deps.calls.length})`);
        },
        metrics: { toolCall: (tool, outcome) => seen.push(`${tool} ${outcome}`) },
      }),
    );
    await client.callTool({ name: 'reading', arguments: { id: 'x' } });
    await client.callTool({ name: 'bounded', arguments: { count: 2, seed: 1, tags: {} } });
    expect(seen).toEqual([
      'load (calls so far: 0)',
      'reading pending',
      'load (calls so far: 1)',
      'bounded ok',
    ]);
  });
});
