import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { cacheToolList, SHARED_TOOL_LISTS_MAX } from './cache-tool-list.js';
import { composePolymodalServers } from './compose-polymodal-servers.js';
import { createPolymodalServer } from './create-polymodal-server.js';

// Raw answers: the SDK client's listTools would parse them, hiding a byte that differs.
const ANY_RESULT = z.object({ tools: z.array(z.unknown()) }).passthrough();

async function connectClient(
  server: McpServer,
): Promise<{ list: () => Promise<string>; close: () => Promise<void> }> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'test', version: '0.0.0' });
  await client.connect(clientTransport);
  return {
    list: async () => JSON.stringify(await client.request({ method: 'tools/list' }, ANY_RESULT)),
    close: () => client.close(),
  };
}

/** Schemas shaped like the servers' own: unions, defaults, enums, pipes, nested objects, output schemas. */
function registerSampleTools(server: McpServer) {
  const job = z.object({
    jobId: z.string().describe('Job to follow.'),
    status: z.enum(['pending', 'running', 'done', 'failed']),
    result: z.union([z.object({ text: z.string() }), z.null()]).optional(),
  });
  const summarize = server.registerTool(
    'summarize_recording',
    {
      title: 'Summarize a recording',
      description: 'Uploads a recording and summarizes it. Costs credits; call get_recording next.',
      inputSchema: {
        file: z.string().min(1).describe('Path of the recording.'),
        language: z.enum(['en', 'th']).default('en'),
        waitSeconds: z.number().int().min(0).max(50).optional(),
        speakers: z
          .string()
          .transform((value) => value.split(','))
          .optional(),
      },
      outputSchema: { job, charged: z.number() },
      annotations: { readOnlyHint: false, openWorldHint: true },
      _meta: { example: true },
    },
    async () => ({ content: [{ type: 'text', text: 'ok' }] }),
  );
  const get = server.registerTool(
    'get_recording',
    {
      description: 'Shows a job live.',
      inputSchema: { jobId: z.string() },
      outputSchema: { job },
      annotations: { readOnlyHint: true },
    },
    async () => ({ content: [{ type: 'text', text: 'ok' }] }),
  );
  const ping = server.registerTool('ping', { description: 'No arguments.' }, async () => ({
    content: [{ type: 'text', text: 'pong' }],
  }));
  return { summarize, get, ping };
}

/** Lists tools once and returns the very object the server handed its transport as the answer. */
async function answerObject(server: McpServer): Promise<unknown> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const sent: unknown[] = [];
  const send = serverTransport.send.bind(serverTransport);
  serverTransport.send = (message, options) => {
    if ('result' in message) sent.push(message.result);
    return send(message, options);
  };
  await server.connect(serverTransport);
  const client = new Client({ name: 'test', version: '0.0.0' });
  await client.connect(clientTransport);
  sent.length = 0;
  await client.request({ method: 'tools/list' }, ANY_RESULT);
  await client.close();
  expect(sent).toHaveLength(1);
  return sent[0];
}

// Built once, as the servers' tool files do: instances registering these share one tools/list answer.
const sharedInput = { jobId: z.string().describe('Job to follow.'), waitSeconds: z.number().optional() };
const sharedOutput = { status: z.enum(['pending', 'done']), text: z.string().optional() };

function registerSharedTools(server: McpServer, description = 'Shows a job live.') {
  const get = server.registerTool(
    'get_job',
    {
      title: 'Get a job',
      description,
      inputSchema: sharedInput,
      outputSchema: sharedOutput,
      annotations: { readOnlyHint: true },
    },
    async () => ({ content: [] }),
  );
  const start = server.registerTool(
    'start_job',
    { description: 'Starts a job.', inputSchema: sharedInput, annotations: { readOnlyHint: false } },
    async () => ({ content: [] }),
  );
  return { get, start };
}

function sharedServer(name = 'shared', description?: string) {
  const server = new McpServer({ name, version: '1.0.0' });
  cacheToolList(server);
  return { server, tools: registerSharedTools(server, description) };
}

const names = (answer: string) =>
  (JSON.parse(answer) as { tools: { name: string }[] }).tools.map((tool) => tool.name);

describe('cacheToolList', () => {
  it("answers byte for byte what the SDK's own tools/list answers, first and warm", async () => {
    const plain = new McpServer({ name: 'plain', version: '0.0.0' });
    registerSampleTools(plain);
    const cached = new McpServer({ name: 'plain', version: '0.0.0' });
    cacheToolList(cached);
    registerSampleTools(cached);
    const plainClient = await connectClient(plain);
    const cachedClient = await connectClient(cached);
    const expected = await plainClient.list();
    expect(names(expected)).toEqual(['summarize_recording', 'get_recording', 'ping']);
    expect(await cachedClient.list()).toBe(expected);
    expect(await cachedClient.list()).toBe(expected);
    await plainClient.close();
    await cachedClient.close();
  });

  it('converts once: a later request reuses the answer until the list changes', async () => {
    const server = new McpServer({ name: 'cached', version: '0.0.0' });
    cacheToolList(server);
    const { get } = registerSampleTools(server);
    const client = await connectClient(server);
    const first = await client.list();
    // A change made behind the SDK's back (no update()) is not seen: the answer was not rebuilt.
    get.description = 'Changed without telling anyone.';
    expect(await client.list()).toBe(first);
    await client.close();
  });

  it('lists every announced change: update, disable, enable, remove and a new tool', async () => {
    const plain = new McpServer({ name: 'plain', version: '0.0.0' });
    const plainTools = registerSampleTools(plain);
    const server = new McpServer({ name: 'plain', version: '0.0.0' });
    cacheToolList(server);
    const tools = registerSampleTools(server);
    const plainClient = await connectClient(plain);
    const client = await connectClient(server);
    await client.list();
    const steps: ((sample: ReturnType<typeof registerSampleTools>, on: McpServer) => void)[] = [
      (sample) => sample.get.update({ description: 'Shows a job live; free.' }),
      (sample) => sample.summarize.disable(),
      (sample) => sample.summarize.enable(),
      (sample) => sample.ping.remove(),
      (_sample, on) =>
        on.registerTool('later', { inputSchema: { text: z.string() } }, async () => ({ content: [] })),
    ];
    for (const step of steps) {
      step(plainTools, plain);
      step(tools, server);
      expect(await client.list()).toBe(await plainClient.list());
    }
    expect(names(await client.list())).toEqual(['summarize_recording', 'get_recording', 'later']);
    await plainClient.close();
    await client.close();
  });

  describe('on Polymodal servers', () => {
    let stateDir: string;
    let env: NodeJS.ProcessEnv;
    beforeEach(async () => {
      stateDir = await mkdtemp(path.join(os.tmpdir(), 'cache-tool-list-'));
      env = {
        POLYMODAL_BASE_URL: 'http://127.0.0.1:9',
        POLYMODAL_API_KEY: 'test-key',
        POLYMODAL_STATE_DIR: stateDir,
        POLYMODAL_ALLOWED_DIRS: stateDir,
      };
    });
    afterEach(async () => {
      await rm(stateDir, { recursive: true, force: true });
    });

    it('does not list a tool the read-only rule removed, and lists the kept ones as the SDK would', async () => {
      const instance = createPolymodalServer({
        name: 'sample',
        title: 'Sample',
        version: '0.0.0',
        instructions: 'Sample tools.',
        deps: { env, readOnly: true },
        register: (server) => registerSampleTools(server),
      });
      const plain = new McpServer({ name: 'plain', version: '0.0.0' });
      registerSampleTools(plain).summarize.remove();
      const client = await connectClient(instance.server);
      const plainClient = await connectClient(plain);
      const answer = await client.list();
      expect(names(answer)).toEqual(['get_recording']);
      expect(await client.list()).toBe(answer);
      // ping has no annotations, so read-only mode drops it too.
      const expected = JSON.parse(await plainClient.list()) as { tools: { name: string }[] };
      // The Polymodal list leaves out `execution` when it is the protocol's default (decorate-tool-list).
      const kept = expected.tools
        .filter((tool) => tool.name === 'get_recording')
        .map(({ execution: _execution, ...tool }: { execution?: unknown; name: string }) => tool);
      expect(answer).toBe(JSON.stringify({ tools: kept }));
      await client.close();
      await plainClient.close();
      await instance.cleanup();
    });

    it('lists one list_jobs on a combined server, whose mounted servers each registered and dropped theirs', async () => {
      const mounted = (toolName: string) => ({
        createServer: (deps: Parameters<typeof createPolymodalServer>[0]['deps']) =>
          createPolymodalServer({
            name: toolName,
            title: toolName,
            version: '0.0.0',
            instructions: '',
            deps,
            register: (server) => {
              server.registerTool(toolName, { description: toolName }, async () => ({ content: [] }));
              server.registerTool('list_jobs', { description: 'dropped' }, async () => ({ content: [] }));
            },
          }),
        jobServices: [toolName],
        getTool: toolName,
      });
      const instance = composePolymodalServers({
        name: 'combined',
        title: 'Combined',
        version: '0.0.0',
        instructions: '',
        deps: { env },
        servers: [mounted('get_one'), mounted('get_two')],
      });
      const client = await connectClient(instance.server);
      const answer = await client.list();
      expect(names(answer)).toEqual(['get_one', 'get_two', 'list_jobs']);
      expect(answer).not.toContain('dropped');
      expect(await client.list()).toBe(answer);
      await client.close();
      await instance.cleanup();
    });
  });

  describe('shared across instances', () => {
    it('two instances with the same tools answer with the very same object, as the SDK builds it', async () => {
      const first = await answerObject(sharedServer().server);
      const second = await answerObject(sharedServer().server);
      expect(second).toBe(first);
      const plain = new McpServer({ name: 'shared', version: '1.0.0' });
      registerSharedTools(plain);
      const plainClient = await connectClient(plain);
      expect(JSON.stringify(second)).toBe(await plainClient.list());
      await plainClient.close();
    });

    it('another server, another tool list or schemas built per instance get an answer of their own', async () => {
      const shared = await answerObject(sharedServer().server);
      expect(await answerObject(sharedServer('other').server)).not.toBe(shared);
      const described = await answerObject(sharedServer('shared', 'Shows a job.').server);
      expect(described).not.toBe(shared);
      expect(JSON.stringify(described)).toContain('Shows a job.');
      const fewer = new McpServer({ name: 'shared', version: '1.0.0' });
      cacheToolList(fewer);
      registerSharedTools(fewer).start.remove();
      const fewerAnswer = await answerObject(fewer);
      expect(fewerAnswer).not.toBe(shared);
      expect(names(JSON.stringify(fewerAnswer))).toEqual(['get_job']);
      // Same texts, but zod objects of its own: the contents are never compared, so it is not shared.
      const own = new McpServer({ name: 'sample', version: '0.0.0' });
      cacheToolList(own);
      registerSampleTools(own);
      const again = new McpServer({ name: 'sample', version: '0.0.0' });
      cacheToolList(again);
      registerSampleTools(again);
      expect(await answerObject(again)).not.toBe(await answerObject(own));
    });

    it("a tool disabled on one instance changes that instance's answer only", async () => {
      const one = sharedServer();
      const other = sharedServer();
      const shared = await answerObject(one.server);
      expect(await answerObject(other.server)).toBe(shared);
      one.tools.start.disable();
      const changed = await answerObject(one.server);
      expect(names(JSON.stringify(changed))).toEqual(['get_job']);
      expect(await answerObject(other.server)).toBe(shared);
      expect(await answerObject(sharedServer().server)).toBe(shared);
      one.tools.start.enable();
      expect(await answerObject(one.server)).toBe(shared);
    });

    it('wraps a raw shape in one zod object per process, and keeps a zod object as given', async () => {
      const one = sharedServer();
      const other = sharedServer();
      expect(one.tools.get.inputSchema).toBe(other.tools.get.inputSchema);
      expect(one.tools.get.outputSchema).toBe(other.tools.get.outputSchema);
      // Both tools of an instance register the same shape: one object for both.
      expect(one.tools.start.inputSchema).toBe(one.tools.get.inputSchema);
      const given = z.object({ text: z.string() });
      const server = new McpServer({ name: 'given', version: '1.0.0' });
      cacheToolList(server);
      const tool = server.registerTool('echo', { inputSchema: given }, async () => ({ content: [] }));
      expect(tool.inputSchema).toBe(given);
      // Without the sharing, the SDK builds a new object for every registration of the same shape.
      const plainOne = new McpServer({ name: 'plain', version: '1.0.0' });
      const plainOther = new McpServer({ name: 'plain', version: '1.0.0' });
      expect(registerSharedTools(plainOne).get.inputSchema).not.toBe(
        registerSharedTools(plainOther).get.inputSchema,
      );
    });

    it(`keeps at most ${SHARED_TOOL_LISTS_MAX} tool lists, the least recently used going first`, async () => {
      const lists = Array.from(
        { length: SHARED_TOOL_LISTS_MAX + 1 },
        (_, index) => `List ${index}, bounded.`,
      );
      const first = await answerObject(sharedServer('bounded', lists[0]).server);
      const answers: unknown[] = [first];
      for (const description of lists.slice(1, SHARED_TOOL_LISTS_MAX)) {
        answers.push(await answerObject(sharedServer('bounded', description).server));
      }
      // 32 lists kept: the first is still shared (and now the most recently used).
      expect(await answerObject(sharedServer('bounded', lists[0]).server)).toBe(first);
      const second = await answerObject(sharedServer('bounded', lists[1]).server);
      await answerObject(sharedServer('bounded', lists[SHARED_TOOL_LISTS_MAX]).server);
      // A 33rd list pushed out the least recently used one (List 2), not the two just used.
      expect(await answerObject(sharedServer('bounded', lists[0]).server)).toBe(first);
      expect(await answerObject(sharedServer('bounded', lists[1]).server)).toBe(second);
      expect(await answerObject(sharedServer('bounded', lists[2]).server)).not.toBe(answers[2]);
    });
  });
});
