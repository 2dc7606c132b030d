/**
 * What the HTTP tests share: a raw request through node:http (fetch drops a Host header it is given, so
 * Host/Origin checks are tested this way), the initialize message and headers a client sends, and an SDK
 * client that presents a bearer token.
 */
import http from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

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

/** An SDK client over Streamable HTTP that sends `Authorization: Bearer <token>`. */
export async function connectWithToken(url: string, token: string, name = 'token-client'): Promise<Client> {
  const client = new Client({ name, version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}
