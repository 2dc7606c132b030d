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
  return {
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
    close: () => transport.close(),
  };
}
