/** What a route handler receives: the request, its parsed URL and params, and shared helpers. */
import type { IncomingMessage } from 'node:http';
import type { KeyScheme, Principal } from './authenticator.js';

export interface RequestContext {
  request: IncomingMessage;
  method: string;
  url: URL;
  params: Record<string, string>;
  /** `METHOD /pattern` of the matched route (the counter key). */
  routeKey: string;
  /** Aborts when the client goes away before the answer is sent. */
  signal: AbortSignal;
  /** Authenticates the request with the given key schemes or throws a 401/503 `HttpError`. */
  authenticate(schemes: readonly KeyScheme[]): Principal;
  /** Reads and parses a JSON body (400 when it is not JSON; 413 past `maxBytes`). */
  readJson(maxBytes?: number): Promise<unknown>;
}
