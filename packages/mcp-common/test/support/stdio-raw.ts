/**
 * A server bin over stdio as a 2026-07-28 host that runs MCP Tasks speaks to it, in raw JSON-RPC messages over
 * the SDK's stdio transport: the SDK client of 2.4 refuses a task answer, so tests of tasks over stdio speak
 * the wire themselves.
 */
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const TASKS = 'io.modelcontextprotocol/tasks';

export interface RawStdioServer {
  request(
    method: string,
    params: Record<string, unknown>,
    declares?: boolean,
  ): Promise<Record<string, unknown>>;
  /**
   * `tasks/get` of `taskId` until it is no longer working, as a host polls: each read the task's
   * `pollIntervalMs` after the one before, at most `polls` reads. Resolves the last answer's result.
   */
  follow(taskId: string, polls?: number): Promise<Record<string, unknown> & { status: string }>;
  close(): Promise<void>;
}

/** A built bin over stdio, spoken to in raw 2026-07-28 messages (each declaring the Tasks extension by default). */
export async function startRawStdio(bin: string, env: Record<string, string>): Promise<RawStdioServer> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin],
    env,
    stderr: 'ignore',
  });
  const waiting = new Map<number, (message: Record<string, unknown>) => void>();
  transport.onmessage = (message) => {
    const { id } = message as { id?: unknown };
    if (typeof id === 'number') waiting.get(id)?.(message as Record<string, unknown>);
  };
  await transport.start();
  let nextId = 1;
  const server: RawStdioServer = {
    async request(method, params, declares = true) {
      const id = nextId++;
      const answered = new Promise<Record<string, unknown>>((resolve) => waiting.set(id, resolve));
      await transport.send({
        jsonrpc: '2.0',
        id,
        method,
        params: {
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'raw-host', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': declares ? { extensions: { [TASKS]: {} } } : {},
          },
        },
      });
      return answered;
    },
    async follow(taskId, polls = 100) {
      let task: Record<string, unknown> & { status: string; pollIntervalMs?: number } = { status: 'working' };
      for (let poll = 0; poll < polls && task.status === 'working'; poll++) {
        if (poll > 0) await new Promise((resolve) => setTimeout(resolve, task.pollIntervalMs ?? 100));
        task = (await server.request('tasks/get', { taskId })).result as typeof task;
      }
      return task;
    },
    close: () => transport.close(),
  };
  return server;
}
