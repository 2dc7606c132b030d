/**
 * A 2026-07-28 request to a server that serves 2025-11-25 only (`--protocol 2025-11-25`): the protocol's
 * "unsupported protocol version" (-32022), naming the one version served, so that a client that negotiates
 * falls back to `initialize`. The id is the request's when it has one, as JSON-RPC asks of an answer; the
 * check is only that the id is a string or a number (not the SDK's `isJSONRPCRequest`, which would drop
 * the id of a request malformed in any other way).
 */
import type http from 'node:http';

export function sendUnsupportedProtocol(response: http.ServerResponse, body: unknown): void {
  response.writeHead(400, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({
      jsonrpc: '2.0',
      id: requestId(body),
      error: {
        code: -32022,
        message: 'Unsupported protocol version: this server is configured to serve 2025-11-25 only',
        data: { supported: ['2025-11-25'] },
      },
    }),
  );
}

function requestId(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
