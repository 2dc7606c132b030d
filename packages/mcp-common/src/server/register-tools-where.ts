/**
 * Registration that keeps only some tools: a server's own `register…Tools` runs unchanged, and every tool it
 * registers that the rule rejects is removed again at once, through the handle the SDK returns. Used for the
 * read-only mode and for the combined server (one `list_jobs` instead of one per service).
 *
 * Removal happens right after each registration, not at the end, so a later tool of the same name (each
 * server registers its own `list_jobs`) can be registered without clashing with the one just dropped.
 */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';

/** Decides from a tool's name and annotations whether the model may see it. */
export type ToolRule = (name: string, annotations: ToolAnnotations | undefined) => boolean;

export function registerToolsWhere(server: McpServer, keep: ToolRule, register: () => void): void {
  const hadOwn = Object.hasOwn(server, 'registerTool');
  const registerTool = server.registerTool;
  // The SDK's overloads are generic over the schemas; this wrapper only reads the name and annotations.
  type LooseRegister = (
    name: string,
    config: { annotations?: ToolAnnotations },
    ...rest: unknown[]
  ) => RegisteredTool;
  const original = registerTool as unknown as LooseRegister;
  const filtered: LooseRegister = (name, config, ...rest) => {
    const handle = original.call(server, name, config, ...rest);
    if (!keep(name, config.annotations)) handle.remove();
    return handle;
  };
  server.registerTool = filtered as unknown as McpServer['registerTool'];
  try {
    register();
  } finally {
    // Put back exactly what was there: the prototype's method, or an outer rule's wrapper.
    if (hadOwn) server.registerTool = registerTool;
    else delete (server as { registerTool?: unknown }).registerTool;
  }
}

/** Tools that neither spend credits nor change anything, as their annotations declare. */
export const isReadOnlyTool: ToolRule = (_name, annotations) => annotations?.readOnlyHint === true;

export const READ_ONLY_VARIABLE = 'POLYMODAL_READ_ONLY';

/** `POLYMODAL_READ_ONLY=1` (or `true`, `yes`) turns the read-only mode on. */
export function readReadOnly(env: NodeJS.ProcessEnv): boolean {
  return ['1', 'true', 'yes'].includes(env[READ_ONLY_VARIABLE]?.trim().toLowerCase() ?? '');
}
