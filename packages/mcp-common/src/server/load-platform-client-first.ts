/**
 * Every tool call of a server first awaits its context's platform client (`context.loadPolymodal()`):
 * the clients, their contracts and their HTTP code are loaded by the first call, not when a host starts
 * the server to list its tools. Installed on a new McpServer before its tools are registered (a combined
 * server's mounts register on it too), like the metrics; no tool file needs to know.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

type LooseHandler = (...args: unknown[]) => unknown;
type LooseRegister = (name: string, config: unknown, ...rest: unknown[]) => unknown;

export function loadPlatformClientFirst(server: McpServer, load: () => Promise<unknown>): void {
  const original = server.registerTool as unknown as LooseRegister;
  const loading: LooseRegister = (name, config, ...rest) => {
    const last = rest.length - 1;
    const handler = rest[last];
    if (typeof handler === 'function') {
      rest[last] = async (...args: unknown[]) => {
        await load();
        return (handler as LooseHandler)(...args);
      };
    }
    return original.call(server, name, config, ...rest);
  };
  server.registerTool = loading as unknown as McpServer['registerTool'];
}
