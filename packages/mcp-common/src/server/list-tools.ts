/**
 * The `tools/list` answer of a server instance, from the definitions it installed: each schema object's JSON
 * Schema converted once per process, or a bin's list written at build time where it describes a tool alike.
 */
import type { Tool } from '@modelcontextprotocol/server';
import { toJSONSchema, type z } from 'zod';
import type { Icon } from '../protocol/sdk-types.js';
import type { ToolSpec } from '../tools/define-tool.js';
import type { PrecomputedToolList } from './precomputed-tool-list.js';
import { withoutVacuousKeywords } from './tool-list-json.js';

/** A tool installed on a server instance, as it is listed. */
export interface ListedTool {
  spec: ToolSpec;
  description: string;
  icons: readonly Icon[];
}

/** Each schema object's JSON Schema, per direction, converted once per process. */
const converted = { input: new WeakMap<z.ZodObject, Tool['inputSchema']>(), output: new WeakMap() };

function jsonSchemaOf(schema: z.ZodObject, io: 'input' | 'output'): Tool['inputSchema'] {
  const cache = converted[io] as WeakMap<z.ZodObject, Tool['inputSchema']>;
  let json = cache.get(schema);
  if (json === undefined) {
    // What SDK 1.x's McpServer sends for a zod 4 object (draft-7, the input or output side of pipes),
    // without the keywords that say nothing.
    json = withoutVacuousKeywords(toJSONSchema(schema, { target: 'draft-7', io })) as Tool['inputSchema'];
    cache.set(schema, json);
  }
  return json;
}

export function listTools(
  listed: readonly ListedTool[],
  server: { name: string; version: string },
  written: PrecomputedToolList | undefined,
): Tool[] {
  const fromFile =
    written && server.name === written.server.name && server.version === written.server.version
      ? new Map(written.tools.map((entry) => [entry.name as string, entry]))
      : undefined;
  return listed.map(({ spec, description, icons }): Tool => {
    const entry = fromFile?.get(spec.name);
    if (entry && describedAlike(spec, description, icons, entry)) return entry as Tool;
    return {
      name: spec.name,
      title: spec.title,
      description,
      inputSchema: jsonSchemaOf(spec.inputSchema, 'input'),
      annotations: spec.annotations,
      ...(spec._meta ? { _meta: spec._meta } : {}),
      ...(spec.outputSchema ? { outputSchema: jsonSchemaOf(spec.outputSchema, 'output') } : {}),
      ...(icons.length > 0 ? { icons: [...icons] } : {}),
    };
  });
}

/** Whether the file's entry describes the tool as it is now (its schemas come from the same code). */
function describedAlike(
  spec: ToolSpec,
  description: string,
  icons: readonly Icon[],
  entry: Record<string, unknown>,
): boolean {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  return (
    same(spec.title, entry.title) &&
    same(description, entry.description) &&
    same(spec.annotations, entry.annotations) &&
    same(spec._meta, entry._meta) &&
    same(icons.length > 0 ? icons : undefined, entry.icons) &&
    entry.execution === undefined
  );
}
