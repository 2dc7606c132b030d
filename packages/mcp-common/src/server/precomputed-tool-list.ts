/**
 * A server bin's `tools/list` answer written when the bin is built (`dist/tool-list.json`: the build runs the
 * fresh bin once and keeps its answer, see scripts/tsup-server-package.mjs), served instead of converting every
 * tool's zod schemas to JSON Schema at the first `tools/list`. The conversion took 10–30 ms and left 3 MiB of
 * heap behind in a process that hosts start at launch, often only to list its tools (issue 14).
 *
 * The file is used only when it is this server's (name and version) and every tool listed now is in it,
 * described alike: same title, description, annotations, execution and `_meta`. The input and output schemas
 * come from the same code as the file, so they are taken from it. Anything else (a file from another version,
 * a tool described otherwise, such as the combined server's `list_jobs` with fewer toolsets, a tool the file
 * does not have) gets the SDK's own answer, as without a file. Read on the first `tools/list`, not at start.
 */
import { readFileSync } from 'node:fs';
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { isDefaultExecution } from './decorate-tool-list.js';

export interface PrecomputedToolList {
  server: { name: string; version: string };
  /** The tools as the built bin listed them (icons and trimmed schemas included). */
  tools: Record<string, unknown>[];
}

/** The list written beside a bin, read on first use; undefined when it is missing or not a tool list. */
export function readPrecomputedToolList(file: URL): () => PrecomputedToolList | undefined {
  let read: { list: PrecomputedToolList | undefined } | undefined;
  return () => {
    read ??= { list: parseToolList(file) };
    return read.list;
  };
}

function parseToolList(file: URL): PrecomputedToolList | undefined {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<PrecomputedToolList>;
    if (
      typeof value.server?.name !== 'string' ||
      typeof value.server.version !== 'string' ||
      !Array.isArray(value.tools) ||
      !value.tools.every((tool) => typeof tool?.name === 'string')
    ) {
      return undefined;
    }
    return value as PrecomputedToolList;
  } catch {
    return undefined;
  }
}

type Handler = (request: unknown, extra: unknown) => unknown;
type LooseSetRequestHandler = (schema: unknown, handler: Handler) => void;

/**
 * Call on a new McpServer before `cacheToolList` and `decorateToolList`, so that this handler is the outermost
 * one: it answers from the file when it matches, and otherwise passes the request on to the usual chain.
 */
export function answerFromPrecomputedToolList(
  server: McpServer,
  toolList: () => PrecomputedToolList | undefined,
): void {
  const protocol = server.server;
  const setRequestHandler = protocol.setRequestHandler as unknown as LooseSetRequestHandler;
  let answer: { tools: Record<string, unknown>[] } | null | undefined;
  const answering: LooseSetRequestHandler = (schema, handler) => {
    const installed: Handler =
      schema === ListToolsRequestSchema
        ? (request, extra) => {
            answer ??= matchingAnswer(server, toolList()) ?? null;
            return answer ?? handler(request, extra);
          }
        : handler;
    setRequestHandler.call(protocol, schema, installed);
  };
  protocol.setRequestHandler = answering as unknown as typeof protocol.setRequestHandler;
  // A tool registered, changed or removed later: look again.
  const sendToolListChanged = server.sendToolListChanged;
  server.sendToolListChanged = () => {
    answer = undefined;
    sendToolListChanged.call(server);
  };
}

function matchingAnswer(
  server: McpServer,
  list: PrecomputedToolList | undefined,
): { tools: Record<string, unknown>[] } | undefined {
  if (!list) return undefined;
  const info = (server.server as unknown as { _serverInfo?: { name?: unknown; version?: unknown } })
    ._serverInfo;
  if (info?.name !== list.server.name || info?.version !== list.server.version) return undefined;
  const registry = (server as unknown as { _registeredTools?: Record<string, RegisteredTool> })
    ._registeredTools;
  if (registry === undefined || registry === null) return undefined;
  const written = new Map(list.tools.map((tool) => [tool.name as string, tool]));
  const tools: Record<string, unknown>[] = [];
  for (const [name, tool] of Object.entries(registry)) {
    // The SDK lists enabled tools only, in the registry's order.
    if (!tool.enabled) continue;
    const entry = written.get(name);
    if (!entry || !describedAlike(tool, entry)) return undefined;
    tools.push(entry);
  }
  return { tools };
}

function describedAlike(tool: RegisteredTool, entry: Record<string, unknown>): boolean {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const execution = isDefaultExecution(tool.execution) ? undefined : tool.execution;
  return (
    same(tool.title, entry.title) &&
    same(tool.description, entry.description) &&
    same(tool.annotations, entry.annotations) &&
    same(execution, entry.execution) &&
    same(tool._meta, entry._meta)
  );
}
