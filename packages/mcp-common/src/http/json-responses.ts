/**
 * The two shapes of answer the HTTP service writes itself. Plain JSON for what is not MCP (health,
 * readiness, the OAuth metadata), never cached. A JSON-RPC error without an id for every refusal at the MCP
 * endpoint, so that a client reads it as it reads the SDK's own refusals: a protocol error with a message.
 */
import type http from 'node:http';

export function sendJson(response: http.ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  response.end(JSON.stringify(body));
}

export function sendJsonRpcError(
  response: http.ServerResponse,
  status: number,
  code: number,
  message: string,
): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/**
 * What a guard returns when it has answered the request itself (a refusal): the caller stops there and
 * writes nothing more.
 */
export const REFUSED = Symbol('refused');
