/**
 * Writing a handler's answer to the wire, and the faults that act there: a reset after the handler ran
 * (the client cannot tell whether it acted), and a truncated body under a full Content-Length. Also the
 * response objects for errors and simulated status faults, and the abrupt reset itself.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FaultRule } from './fault-rule.js';
import type { HttpError } from './http-error.js';
import type { LoggedRequest } from './request-log.js';
import type { SandboxResponse } from './sandbox-response.js';

/** Ends the connection abruptly: a TCP reset when the platform supports it, else a plain destroy. */
export function resetSocket(socket: Socket | null): void {
  if (!socket || socket.destroyed) return;
  const withReset = socket as Socket & { resetAndDestroy?: () => void };
  if (typeof withReset.resetAndDestroy === 'function') withReset.resetAndDestroy();
  else socket.destroy();
}

export function errorResponse(error: HttpError): SandboxResponse {
  return {
    status: error.status,
    headers: error.headers,
    body: { ...error.fields, error: error.message },
    bodyKind: 'json',
  };
}

export function faultResponse(rule: FaultRule): SandboxResponse {
  const status = rule.status ?? 500;
  const headers: Record<string, string> = {};
  if (rule.retryAfter !== undefined) headers['retry-after'] = rule.retryAfter;
  return { status, headers, body: { error: `simulated fault: HTTP ${status}` }, bodyKind: 'json' };
}

function serialize(response: SandboxResponse): {
  headers: Record<string, string>;
  body: Buffer | Readable | undefined;
} {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers ?? {})) headers[name.toLowerCase()] = value;
  const kind = response.bodyKind ?? 'json';
  if (kind === 'stream') {
    if (!(response.body instanceof Readable)) throw new TypeError('a stream response needs a Readable body');
    return { headers, body: response.body };
  }
  if (response.body === undefined) {
    headers['content-length'] = '0';
    return { headers, body: undefined };
  }
  let body: Buffer;
  if (kind === 'json') {
    body = Buffer.from(JSON.stringify(response.body));
    headers['content-type'] ??= 'application/json; charset=utf-8';
  } else {
    body = Buffer.isBuffer(response.body) ? response.body : Buffer.from(String(response.body));
  }
  headers['content-length'] = String(body.length);
  return { headers, body };
}

/** Notes the answer's status and its Retry-After in the request's log entry. */
function logAnswer(logged: LoggedRequest, status: number, headers: Record<string, string>): void {
  logged.status = status;
  const retryAfter = Number(headers['retry-after']);
  // Delta-seconds only (what the platform sends); an HTTP date is not recorded.
  if (headers['retry-after'] !== undefined && Number.isFinite(retryAfter))
    logged.retryAfterSeconds = retryAfter;
}

/** Full Content-Length announced, half the body (or of its first chunk) sent, then the connection drops. */
function sendTruncated(
  request: IncomingMessage,
  response: ServerResponse,
  body: Buffer | Readable | undefined,
): void {
  if (Buffer.isBuffer(body)) {
    response.write(body.subarray(0, Math.floor(body.length / 2)), () => resetSocket(request.socket));
  } else if (body) {
    body.once('data', (chunk: Buffer) => {
      body.destroy();
      response.write(chunk.subarray(0, Math.max(1, Math.floor(chunk.length / 2))), () =>
        resetSocket(request.socket),
      );
    });
  } else {
    resetSocket(request.socket);
  }
}

export interface SendOptions {
  request: IncomingMessage;
  response: ServerResponse;
  answer: SandboxResponse;
  /** The fault that acts on the way out (reset-after, truncate), if any. */
  fault: FaultRule | undefined;
  logged: LoggedRequest | undefined;
}

export async function sendResponse(options: SendOptions): Promise<void> {
  const { request, response, answer, fault, logged } = options;
  if (fault?.kind === 'reset-after') {
    // The handler ran in full (a job may exist now); the client only sees the connection drop.
    resetSocket(request.socket);
    return;
  }
  const { headers, body } = serialize(answer);
  headers['cache-control'] ??= 'no-store';
  response.writeHead(answer.status, headers);
  if (logged) logAnswer(logged, answer.status, headers);
  if (fault?.kind === 'truncate') {
    sendTruncated(request, response, body);
    return;
  }
  if (body instanceof Readable) {
    await pipeline(body, response).catch(() => resetSocket(request.socket));
  } else {
    response.end(body);
  }
}
