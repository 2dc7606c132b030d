/**
 * What a route handler returns. Handlers never write to the socket themselves, so that the server can
 * apply response faults (reset after the handler ran, truncated body) to any route alike.
 */
import type { Readable } from 'node:stream';

export interface SandboxResponse {
  status: number;
  headers?: Record<string, string>;
  /** A JSON value, a ready body, or a stream (for large downloads). */
  body?: unknown;
  /** How `body` is sent; `json` unless told. */
  bodyKind?: 'json' | 'raw' | 'stream';
}

/** A JSON answer. */
export function json(status: number, body: unknown, headers?: Record<string, string>): SandboxResponse {
  return { status, body, bodyKind: 'json', ...(headers ? { headers } : {}) };
}

/** A raw answer (bytes or text) with its content type. */
export function raw(status: number, body: Buffer | string, contentType: string): SandboxResponse {
  return { status, body, bodyKind: 'raw', headers: { 'content-type': contentType } };
}

/** A streamed answer; the length is sent when known so that truncation faults can honour it. */
export function stream(
  status: number,
  body: Readable,
  options: { contentType: string; contentLength?: number },
): SandboxResponse {
  const headers: Record<string, string> = { 'content-type': options.contentType };
  if (options.contentLength !== undefined) headers['content-length'] = String(options.contentLength);
  return { status, body, bodyKind: 'stream', headers };
}
