/** Reads a small JSON request body with a size cap; invalid JSON is the caller's 400. */
import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-error.js';

export const DEFAULT_JSON_LIMIT_BYTES = 1024 * 1024;

export async function readJsonBody(
  request: IncomingMessage,
  maxBytes = DEFAULT_JSON_LIMIT_BYTES,
): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      throw new HttpError(413, `request body too large: at most ${maxBytes} bytes of JSON`);
    }
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') throw new HttpError(400, 'invalid JSON: the request body is empty');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, `invalid JSON: ${(error as Error).message}`);
  }
}
