/**
 * Reads a POST's JSON-RPC body, at most `maxBytes` of it: a client must not make the server hold an
 * unbounded body in memory. Too large is 413 and the connection is cut (the rest is not read); a body that
 * is not JSON is the JSON-RPC parse error (400, -32700). The body is read only after the Host/Origin check
 * and authentication, so a stranger cannot make the server read anything.
 *
 * Not the SDK's `readRequestBody`: it reads a web `Request`, and wrapping a Node request in one only to read
 * it adds a stream adapter for nothing; its decoder also drops a leading byte-order mark, which JSON does
 * not allow and which is refused here as before. Nor `isJsonContentType`: the SDK's transports behind
 * this check the content type themselves and answer 415 in their own words.
 */
import type http from 'node:http';
import { REFUSED, sendJsonRpcError } from './json-responses.js';

/** The parsed body, or `REFUSED` once the 413 or 400 has been answered. */
export async function readJsonBody(
  request: http.IncomingMessage,
  response: http.ServerResponse,
  maxBytes: number,
): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      sendJsonRpcError(response, 413, -32000, `request body exceeds ${maxBytes} bytes`);
      request.destroy();
      return REFUSED;
    }
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    sendJsonRpcError(response, 400, -32700, 'parse error: the body is not valid JSON');
    return REFUSED;
  }
}
