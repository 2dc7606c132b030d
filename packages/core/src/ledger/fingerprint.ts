/**
 * Stable identity of a piece of work: the same inputs always give the same fingerprint, whatever the
 * order of object keys, so a repeated request can be recognised and not paid for twice.
 */
import { nodeCrypto } from '../util/builtins.js';

/** JSON with object keys sorted at every level; `undefined` members are dropped as in JSON. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    return text === undefined ? 'null' : text;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return canonicalJson((value as { toJSON: () => unknown }).toJSON());
  }
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined && typeof item !== 'function')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}

/** sha256 (hex) of the canonical JSON of `parts`. */
export function fingerprint(parts: Record<string, unknown>): string {
  return nodeCrypto().createHash('sha256').update(canonicalJson(parts)).digest('hex');
}
