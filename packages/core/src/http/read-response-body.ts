/**
 * Reading a response: its body as text within a size limit (always drained, so the connection can be
 * reused), JSON that may be empty, and headers flattened to one lower-case string each.
 */

/** A body longer than the limit of a response that must be parsed whole. */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`body exceeds ${limit} bytes`);
  }
}

/**
 * Reads a body as UTF-8. Always drains it to the end so the connection can be reused; past `limit`
 * bytes it either fails (`strict`, for bodies we must parse) or keeps only the head (error bodies).
 */
export async function readText(
  body: AsyncIterable<Uint8Array>,
  limit: number,
  strict: boolean,
): Promise<string> {
  const chunks: Buffer[] = [];
  let kept = 0;
  for await (const chunk of body) {
    const buffer = Buffer.from(chunk);
    if (kept + buffer.length > limit) {
      if (strict) throw new BodyTooLargeError(limit);
      chunks.push(buffer.subarray(0, Math.max(0, limit - kept)));
      kept = limit;
      continue;
    }
    chunks.push(buffer);
    kept += buffer.length;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** JSON of a body; an empty body is `undefined`, not an error. */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: unknown } {
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error };
  }
}

export function flattenHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    result[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return result;
}
