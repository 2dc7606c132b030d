/**
 * Runs every request in a request scope (see `scope/request-scope.ts`): its id (a well-formed
 * `X-Request-Id` from the caller, or a new UUID) is echoed in the response's `X-Request-Id` and carried by
 * every JSON log line written while it is handled, and the drain signal reaches the tool calls it makes.
 * Each request is logged once served; one that fails unexpectedly is logged and answered 500 (or its
 * response ended, when it had already begun).
 */
import { AsyncResource } from 'node:async_hooks';
import type http from 'node:http';
import type { Logger } from '../logging/create-logger.js';
import { requestIdFrom, runInRequestScope } from '../scope/request-scope.js';
import { sendJsonRpcError } from './json-responses.js';
import type { Serve } from './route-table.js';

export interface RequestScopeOptions {
  /** Aborted when shutdown starts (see `ShutdownDrain`). */
  draining: AbortSignal;
  log: Logger | undefined;
}

export function serveInRequestScope(
  serve: Serve,
  { draining, log }: RequestScopeOptions,
): (request: http.IncomingMessage, response: http.ServerResponse) => void {
  return (request, response) => {
    const requestId = requestIdFrom(request.headers['x-request-id']);
    response.setHeader('x-request-id', requestId);
    runInRequestScope({ requestId, draining }, () => {
      const started = performance.now();
      // Bound to the request's scope: an emitter calls its listeners in the emitter's context, not this one.
      response.once(
        'finish',
        AsyncResource.bind(() => {
          log?.debug('HTTP request served', {
            method: request.method,
            path: new URL(request.url ?? '/', 'http://localhost').pathname.slice(0, 200),
            status: response.statusCode,
            ms: Math.round(performance.now() - started),
          });
        }),
      );
      // Called at once (not a microtask later), so the request starts being handled in this tick.
      (async () => serve(request, response))().catch((error: unknown) => {
        log?.error('HTTP request failed', {
          error: error instanceof Error ? error.message : String(error),
        });
        if (!response.headersSent) sendJsonRpcError(response, 500, -32603, 'internal error');
        else response.end();
      });
    });
  };
}
