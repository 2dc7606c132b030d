/**
 * What the SDK 1.x McpServer leaves out of its `tools/list` answer, or puts in for nothing (issues 14, 15):
 *
 * - Icons. The protocol's Tool has `icons`, but SDK 1.x's `registerTool` neither takes nor lists them (added
 *   in 2.x only, typescript-sdk #1864). A server registers its tools inside `registerWithIcons`, which notes
 *   each tool's icons; the answer gets them here. Mounted on the combined server, each tool keeps the icon of
 *   the server it comes from (the innermost registration wins), and the combined server's own `list_jobs`
 *   gets the combined icon.
 * - `execution: {"taskSupport":"forbidden"}` on every tool: the protocol's default when `execution` is absent,
 *   so 36 bytes per tool that change nothing. Dropped only when it says exactly that.
 * - `propertyNames: {"type":"string"}` (zod's record): every JSON object key is a string.
 * - `additionalProperties: {}` (zod's loose object): further properties are allowed when it is absent too.
 * - zod's safe-integer bounds. Every `.int()` becomes `"minimum":-9007199254740991,"maximum":
 *   9007199254740991` in JSON Schema: 50 bytes in the model's context on every turn that say nothing a JSON
 *   integer does not (JavaScript cannot hold a larger integer exactly). Only those two values are dropped;
 *   every other bound stays, and the server's zod schema still checks every call.
 *
 * Installed after `cacheToolList`, so it wraps the SDK's handler as the McpServer installs it and the cached
 * (shared) answer is the decorated one. The cache key does not name the icons: a tool's icons follow from
 * the server that registered it, which the key's server name already tells apart.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type Icon, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

type Handler = (request: unknown, extra: unknown) => unknown;
type LooseSetRequestHandler = (schema: unknown, handler: Handler) => void;
type LooseRegister = (name: string, ...rest: unknown[]) => unknown;

const toolIcons = new WeakMap<McpServer, Map<string, readonly Icon[]>>();

/** Call on a new McpServer after `cacheToolList` and before any tool is registered. */
export function decorateToolList(server: McpServer): void {
  const protocol = server.server;
  const setRequestHandler = protocol.setRequestHandler as unknown as LooseSetRequestHandler;
  const decorating: LooseSetRequestHandler = (schema, handler) => {
    const installed: Handler =
      schema === ListToolsRequestSchema
        ? (request, extra) => {
            const answer = handler(request, extra);
            const icons = toolIcons.get(server);
            return answer instanceof Promise
              ? answer.then((value) => decorateAnswer(value, icons))
              : decorateAnswer(answer, icons);
          }
        : handler;
    setRequestHandler.call(protocol, schema, installed);
  };
  protocol.setRequestHandler = decorating as unknown as typeof protocol.setRequestHandler;
}

/** Runs `register`; every tool it registers on `server` is listed with `icons`. */
export function registerWithIcons(server: McpServer, icons: readonly Icon[], register: () => void): void {
  if (icons.length === 0) {
    register();
    return;
  }
  let byName = toolIcons.get(server);
  if (byName === undefined) {
    byName = new Map();
    toolIcons.set(server, byName);
  }
  const known = byName;
  const hadOwn = Object.hasOwn(server, 'registerTool');
  const registerTool = server.registerTool as unknown as LooseRegister;
  const noting: LooseRegister = (name, ...rest) => {
    const handle = registerTool.call(server, name, ...rest);
    // After the call: a registration nested inside (a mounted server's) has noted its own icons by now,
    // and this outer one must not keep them, so the innermost wins by being set last.
    known.set(name, icons);
    return handle;
  };
  server.registerTool = noting as unknown as McpServer['registerTool'];
  try {
    register();
  } finally {
    if (hadOwn) server.registerTool = registerTool as unknown as McpServer['registerTool'];
    else delete (server as { registerTool?: unknown }).registerTool;
  }
}

function decorateAnswer(answer: unknown, icons: Map<string, readonly Icon[]> | undefined): unknown {
  if (!isObject(answer) || !Array.isArray((answer as { tools?: unknown }).tools)) return answer;
  const tools = (answer as { tools: Record<string, unknown>[] }).tools.map((tool) => {
    const own = icons?.get(tool.name as string);
    const { execution, ...rest } = tool;
    return {
      ...rest,
      ...(isDefaultExecution(execution) ? {} : { execution }),
      inputSchema: withoutVacuousKeywords(tool.inputSchema),
      ...(tool.outputSchema === undefined ? {} : { outputSchema: withoutVacuousKeywords(tool.outputSchema) }),
      ...(own ? { icons: own } : {}),
    };
  });
  return { ...answer, tools };
}

export function isDefaultExecution(execution: unknown): boolean {
  if (execution === undefined) return true;
  if (!isObject(execution)) return false;
  const entries = Object.entries(execution);
  return entries.length === 1 && entries[0]?.[0] === 'taskSupport' && entries[0]?.[1] === 'forbidden';
}

/**
 * A JSON Schema without `minimum: -(2^53 - 1)`, `maximum: 2^53 - 1`, `propertyNames: {type: string}` and
 * `additionalProperties: {}`, at any depth: keywords that allow what is allowed anyway. Nothing else changes.
 */
export function withoutVacuousKeywords(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutVacuousKeywords);
  if (!isObject(schema)) return schema;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) continue;
    if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) continue;
    if (key === 'propertyNames' && isStringTypeOnly(value)) continue;
    if (
      key === 'additionalProperties' &&
      isObject(value) &&
      !Array.isArray(value) &&
      Object.keys(value).length === 0
    ) {
      continue;
    }
    result[key] = withoutVacuousKeywords(value);
  }
  return result;
}

function isStringTypeOnly(value: unknown): boolean {
  if (!isObject(value)) return false;
  const entries = Object.entries(value);
  return entries.length === 1 && entries[0]?.[0] === 'type' && entries[0]?.[1] === 'string';
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

/**
 * An SVG as a self-contained icon (a `data:` URI: nothing to host, nothing fetched). Only the characters a
 * URI cannot carry as they are (`<`, `>`, `#`, `%`, double quotes, spaces) are escaped, which keeps it
 * near the SVG's own size; base64 would add a third.
 */
export function svgIcon(svg: string): Icon {
  const escaped = svg.replace(/[<>#%"\s]/g, (character) =>
    character === ' ' ? '%20' : encodeURIComponent(character),
  );
  // No `sizes`: absent means any size, which an SVG is, and it would be repeated on every tool.
  return { src: `data:image/svg+xml,${escaped}`, mimeType: 'image/svg+xml' };
}
