/**
 * Converts the tools' schemas once: the SDK 1.x McpServer rebuilds its `tools/list` answer on every request,
 * converting each tool's zod input and output schemas to JSON Schema again (several milliseconds for a
 * server's tools, on every turn of a host that lists them). This keeps the SDK's own answer and returns it
 * again until the tool list changes.
 *
 * Only public SDK methods are involved in building the answer. The SDK's own `tools/list` handler is kept,
 * not rewritten: it is caught as the McpServer installs it through `server.setRequestHandler`, so the answer
 * stays the one the SDK builds, byte for byte. The cache is dropped whenever the McpServer announces a
 * changed list (`sendToolListChanged`), which every registration and every `update`, `enable`, `disable` and
 * `remove` of a tool handle does, connected or not. A client keeps its own copy of the list until that same
 * announcement, so the cached answer is never staler than what the client already holds.
 *
 * One answer per process for each distinct tool list: over Streamable HTTP every request (stateless) or
 * session builds a new McpServer with the same tools, and each kept an answer of its own (~65 KiB). The
 * answer is shared between instances whose lists are the same: same server name and version and, tool by
 * tool in order, the same name, title, description, annotations, execution, _meta and the very same input
 * and output schema objects (the tool files build them once per process), enabled tools only. Anything else
 * (another toolset, the read-only filter, a tool disabled or updated on one instance, a schema built per
 * instance) gives another key, so an instance never answers with a list it does not have. Reading the list
 * needs the McpServer's registry of tools (`_registeredTools`, not public): should a later SDK not have it,
 * each instance keeps its own answer as before.
 *
 * The SDK wraps a tool's raw shape (`inputSchema: { jobId: z.string() }`) in a new zod object at every
 * registration; the wrapper is built here once per shape, with the SDK's own `objectFromShape`, and handed
 * to the SDK instead, which keeps a zod object as given. Same object the SDK would build, so the same
 * contract; one per process instead of two per tool and instance, and a stable identity for the key.
 */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { objectFromShape } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

type Handler = (request: unknown, extra: unknown) => unknown;
type LooseSetRequestHandler = (schema: unknown, handler: Handler) => void;
type LooseRegister = (name: string, config: unknown, ...rest: unknown[]) => unknown;

/** Distinct tool lists kept per process: a few servers × toolsets × read-only; least recently used go. */
export const SHARED_TOOL_LISTS_MAX = 32;
const sharedAnswers = new Map<string, unknown>();

// Identity of a schema object, as a small number: the key compares objects, never their contents.
const objectIds = new WeakMap<object, number>();
let nextObjectId = 0;
// A raw shape's zod object, built once per process (the SDK would build one per registration).
const objectOfShape = new WeakMap<object, unknown>();

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
            cached ??= { answer: sharedAnswer(server, () => handler(request, extra)) };
            return cached.answer;
          }
        : handler;
    setRequestHandler.call(protocol, schema, installed);
  };
  protocol.setRequestHandler = caching as unknown as typeof protocol.setRequestHandler;

  // Innermost wrapper of registerTool (installed first), so it sees the config the SDK itself receives.
  const registerTool = server.registerTool as unknown as LooseRegister;
  const sharing: LooseRegister = (name, config, ...rest) => {
    const given = config as { inputSchema?: unknown; outputSchema?: unknown } | undefined;
    const shared = given && {
      ...given,
      inputSchema: sharedObject(given.inputSchema),
      outputSchema: sharedObject(given.outputSchema),
    };
    return registerTool.call(server, name, shared ?? config, ...rest);
  };
  server.registerTool = sharing as unknown as McpServer['registerTool'];

  const sendToolListChanged = server.sendToolListChanged;
  server.sendToolListChanged = () => {
    cached = undefined;
    sendToolListChanged.call(server);
  };
}

/** The zod object of a raw shape, the same for every registration; anything else as given. */
function sharedObject(schema: unknown): unknown {
  if (!isRawShape(schema)) return schema;
  let object = objectOfShape.get(schema);
  if (object === undefined) {
    object = objectFromShape(schema as Parameters<typeof objectFromShape>[0]);
    objectOfShape.set(schema, object);
  }
  return object;
}

/** A plain object of zod schemas (or none), as the SDK tells a raw shape from a schema; zod schemas are class instances. */
function isRawShape(value: unknown): value is object {
  if (!isObject(value) || Object.getPrototypeOf(value) !== Object.prototype) return false;
  if ('_zod' in value || '_def' in value) return false;
  return Object.values(value).every((field) => isObject(field) && ('_zod' in field || '_def' in field));
}

/** The answer shared by every instance with this tool list, built by `build` (the SDK) when none is yet. */
function sharedAnswer(server: McpServer, build: () => unknown): unknown {
  const key = toolListKey(server);
  if (key === undefined) return build();
  if (sharedAnswers.has(key)) {
    const answer = sharedAnswers.get(key);
    sharedAnswers.delete(key);
    sharedAnswers.set(key, answer);
    return answer;
  }
  const answer = build();
  sharedAnswers.set(key, answer);
  if (sharedAnswers.size > SHARED_TOOL_LISTS_MAX) {
    sharedAnswers.delete(sharedAnswers.keys().next().value as string);
  }
  return answer;
}

/** What the SDK's answer is made of, as a string; undefined when the registry cannot be read. */
function toolListKey(server: McpServer): string | undefined {
  const registry = (server as unknown as { _registeredTools?: unknown })._registeredTools;
  if (!isObject(registry)) return undefined;
  const info = (server.server as unknown as { _serverInfo?: { name?: unknown; version?: unknown } })
    ._serverInfo;
  const parts: unknown[] = [info?.name, info?.version];
  for (const [name, tool] of Object.entries(registry as Record<string, RegisteredTool>)) {
    // The SDK lists enabled tools only, in the registry's order.
    if (!tool.enabled) continue;
    parts.push([
      name,
      tool.title,
      tool.description,
      tool.annotations,
      tool.execution,
      tool._meta,
      schemaId(tool.inputSchema),
      schemaId(tool.outputSchema),
    ]);
  }
  return JSON.stringify(parts);
}

function schemaId(schema: unknown): number | null {
  if (!isObject(schema)) return null;
  let id = objectIds.get(schema);
  if (id === undefined) {
    id = nextObjectId++;
    objectIds.set(schema, id);
  }
  return id;
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}
