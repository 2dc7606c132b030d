import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { z } from 'zod';

/**
 * A schema object (a tool's input or output, a prompt's arguments) as the SDK takes it (Standard Schema with
 * its JSON Schema), with each JSON Schema it asks for converted once per process. The SDK converts a tool's
 * schemas for each server it builds (the input's to check `Mcp-Param-*` headers, the output's to shape a
 * result) and a prompt's arguments at every `prompts/list`, and over HTTP a server is built for every
 * request: zod's conversion cost more than the rest of a `list_jobs` call. Validation is zod's own.
 */
export function standardSchemaOf(schema: z.ZodObject): ToolSchema {
  let wrapped = standardSchemas.get(schema);
  if (wrapped === undefined) {
    const standard = schema['~standard'];
    const converted = new Map<string, Record<string, unknown>>();
    const once =
      (io: 'input' | 'output') =>
      (options: Parameters<typeof standard.jsonSchema.input>[0]): Record<string, unknown> => {
        const key = `${io} ${JSON.stringify(options)}`;
        let json = converted.get(key);
        if (json === undefined) {
          json = standard.jsonSchema[io](options);
          converted.set(key, json);
        }
        return json;
      };
    wrapped = { '~standard': { ...standard, jsonSchema: { input: once('input'), output: once('output') } } };
    standardSchemas.set(schema, wrapped);
  }
  return wrapped;
}

const standardSchemas = new WeakMap<z.ZodObject, ToolSchema>();

export type ToolSchema = StandardSchemaWithJSON<Record<string, unknown>, Record<string, unknown>>;
