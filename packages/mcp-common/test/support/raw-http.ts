/**
 * What the HTTP tests share: a raw request through node:http (fetch drops a Host header it is given, so
 * Host/Origin checks are tested this way), the first request each protocol generation's client sends
 * (2025-11-25's `initialize`, 2026-07-28's `server/discover`) with its headers, and an SDK client of either
 * generation that presents a bearer token.
 */
import http from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { modernClient, type ProtocolGeneration } from './server-harness.js';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request; without a body it is a GET, with one a POST (unless `method` says otherwise). */
export function rawRequest(
  url: string,
  headers: Record<string, string>,
  body?: string,
  method: string = body === undefined ? 'GET' : 'POST',
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers }, (response) => {
      let text = '';
      response.on('data', (chunk) => {
        text += chunk;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }),
      );
    });
    request.on('error', reject);
    request.end(body ?? '');
  });
}

export const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

export const JSON_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

/**
 * A 2026-07-28 request as the SDK client sends it (recorded through a fetch wrapper): every request carries
 * the `_meta` envelope (protocol version, client info and capabilities) and names its method and version in
 * the `Mcp-Method` and `MCP-Protocol-Version` headers. `method` defaults to the probe a client connects with.
 */
export function modernRequest(
  method = 'server/discover',
  params: Record<string, unknown> = {},
): { headers: Record<string, string>; body: string } {
  return {
    headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': method },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  };
}

/** The SDK client of a protocol generation: 2025-11-25 is the client's default, 2026-07-28 is pinned. */
export function clientOf(
  generation: ProtocolGeneration,
  name = 'http-client',
  capabilities: Record<string, unknown> = {},
): Client {
  return generation === '2026-07-28'
    ? modernClient(name, capabilities)
    : new Client({ name, version: '1' }, { capabilities });
}

/** An SDK client of `generation` (default 2025-11-25) over Streamable HTTP, sending `headers` with each request. */
export async function connectHttp(
  url: string,
  options: { generation?: ProtocolGeneration; name?: string; headers?: Record<string, string> } = {},
): Promise<Client> {
  const client = clientOf(options.generation ?? '2025-11-25', options.name);
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(url),
      options.headers ? { requestInit: { headers: options.headers } } : {},
    ),
  );
  return client;
}

/** An SDK client of `generation` (default 2025-11-25) over Streamable HTTP that sends `Authorization: Bearer <token>`. */
export function connectWithToken(
  url: string,
  token: string,
  name = 'token-client',
  generation: ProtocolGeneration = '2025-11-25',
): Promise<Client> {
  return connectHttp(url, { generation, name, headers: { authorization: `Bearer ${token}` } });
}
