/**
 * The JSON of a tool list, trimmed of what says nothing (issues 14, 15), and the servers' icons:
 *
 * - `propertyNames: {"type":"string"}` (zod's record): every JSON object key is a string.
 * - `additionalProperties: {}` (zod's loose object): further properties are allowed when it is absent too.
 * - zod's safe-integer bounds. Every `.int()` becomes `"minimum":-9007199254740991,"maximum":
 *   9007199254740991` in JSON Schema: 50 bytes in the model's context on every turn that say nothing a JSON
 *   integer does not (JavaScript cannot hold a larger integer exactly). Only those two values are dropped;
 *   every other bound stays, and the server's zod schema still checks every call.
 *
 * `execution: {"taskSupport":"forbidden"}`, the protocol's default, is never listed (see `sdk-server.ts`).
 */
import type { Icon } from '../protocol/sdk-types.js';

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
