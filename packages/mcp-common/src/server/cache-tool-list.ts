/**
 * Converts the tools' schemas once: the SDK 1.x McpServer rebuilds its `tools/list` answer on every request,
 * converting each tool's zod input and output schemas to JSON Schema again (several milliseconds for a
 * server's tools, on every turn of a host that lists them). This keeps the SDK's own answer and returns it
 * again until the tool list changes.
 *
 * Only public SDK methods are involved. The SDK's own `tools/list` handler is kept, not rewritten: it is
 * caught as the McpServer installs it through `server.setRequestHandler`, so the answer stays the one the
 * SDK builds, byte for byte. The cache is dropped whenever the McpServer announces a changed list
 * (`sendToolListChanged`), which every registration and every `update`, `enable`, `disable` and `remove` of
 * a tool handle does, connected or not. A client keeps its own copy of the list until that same
 * announcement, so the cached answer is never staler than what the client already holds.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

type Handler = (request: unknown, extra: unknown) => unknown;
type LooseSetRequestHandler = (schema: unknown, handler: Handler) => void;

/** Call on a new McpServer, before any tool is registered (the SDK installs its handler with the first). */
export function cacheToolList(server: McpServer): void {
  const protocol = server.server;
  const setRequestHandler = protocol.setRequestHandler as unknown as LooseSetRequestHandler;
  let cached: { answer: unknown } | undefined;

  const caching: LooseSetRequestHandler = (schema, handler) => {
    // The SDK passes the very schema it exports, so identity tells the tools/list handler apart.
    const installed: Handler =
      schema === ListToolsRequestSchema
        ? (request, extra) => {
            cached ??= { answer: handler(request, extra) };
            return cached.answer;
          }
        : handler;
    setRequestHandler.call(protocol, schema, installed);
  };
  protocol.setRequestHandler = caching as unknown as typeof protocol.setRequestHandler;

  const sendToolListChanged = server.sendToolListChanged;
  server.sendToolListChanged = () => {
    cached = undefined;
    sendToolListChanged.call(server);
  };
}
