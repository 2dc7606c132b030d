/**
 * One WebSocket upgrade through the sandbox: counted and logged like a request, faults applied before
 * the upgrade (hang, reset, simulated status, latency, auth unavailable) and on the open socket (stall,
 * malformed frames), then the route's handler decides whether to accept it. A refusal is written as a
 * plain HTTP answer on the socket, since no response object exists for an upgrade.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { abortableDelay } from './abortable-delay.js';
import { applyWebSocketFault } from './apply-web-socket-fault.js';
import type { FaultRule } from './fault-rule.js';
import { HttpError } from './http-error.js';
import type { LoggedRequest } from './request-log.js';
import type { Router } from './router.js';
import { resetSocket } from './send-response.js';
import { arrival, authenticateLogged, type ServerDeps } from './server-deps.js';

export interface UpgradeRequest {
  request: IncomingMessage;
  socket: Socket;
  head: Buffer;
}

function rejectUpgrade(socket: Socket, error: HttpError, logged: LoggedRequest | undefined): void {
  if (logged) logged.status = error.status;
  const body = JSON.stringify({ ...error.fields, error: error.message });
  const reason = error.status === 404 ? 'Not Found' : error.status === 401 ? 'Unauthorized' : 'Error';
  socket.end(
    `HTTP/1.1 ${error.status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Applies the faults that end an upgrade before its handler; true when one did. */
function endedByFault(
  deps: ServerDeps,
  socket: Socket,
  at: { fault: FaultRule | undefined; logged: LoggedRequest },
): boolean {
  const { fault, logged } = at;
  if (fault?.kind === 'hang') {
    // Never answered, never upgraded; upgraded sockets are not the HTTP server's to close, so close()
    // destroys this one itself.
    const destroy = () => socket.destroy();
    if (deps.closing.aborted) destroy();
    deps.closing.addEventListener('abort', destroy, { once: true });
    socket.once('close', () => deps.closing.removeEventListener('abort', destroy));
    return true;
  }
  if (fault?.kind === 'reset-before' || fault?.kind === 'reset-after' || fault?.kind === 'truncate') {
    resetSocket(socket);
    return true;
  }
  if (fault?.kind === 'status') {
    const status = fault.status ?? 500;
    const headers: Record<string, string> = fault.retryAfter ? { 'retry-after': fault.retryAfter } : {};
    rejectUpgrade(socket, new HttpError(status, `simulated fault: HTTP ${status}`, { headers }), logged);
    return true;
  }
  return false;
}

type UpgradeMatch = NonNullable<ReturnType<Router['matchUpgrade']>>;

interface OpenUpgrade {
  upgrade: UpgradeRequest;
  url: URL;
  match: UpgradeMatch;
  fault: FaultRule | undefined;
  logged: LoggedRequest;
}

/** Runs the route's handler; what to do with the open socket, or undefined when it refused the upgrade. */
function acceptUpgrade(deps: ServerDeps, open: OpenUpgrade): ReturnType<UpgradeMatch['handler']> | undefined {
  const { upgrade, url, match, fault, logged } = open;
  const { request, socket } = upgrade;
  try {
    return match.handler({
      request,
      url,
      params: match.params,
      authenticate: authenticateLogged(
        (schemes) =>
          deps.options.authenticator.authenticate(request, url, {
            schemes,
            unavailable: fault?.kind === 'auth-unavailable',
          }),
        logged,
      ),
    });
  } catch (error) {
    if (HttpError.isInstance(error)) rejectUpgrade(socket, error, logged);
    else {
      deps.onError(error);
      rejectUpgrade(socket, new HttpError(500, 'internal error in the sandbox'), logged);
    }
    return undefined;
  }
}

export function handleUpgrade(deps: ServerDeps, upgrade: UpgradeRequest): void {
  const { options } = deps;
  const { request, socket, head } = upgrade;
  const arrived = arrival(deps);
  // The HTTP server stops listening for errors on an upgrade socket; a client that drops while a fault
  // holds the upgrade must not crash the process.
  socket.on('error', () => undefined);
  let url: URL;
  try {
    url = new URL(request.url ?? '/', 'http://sandbox.invalid');
  } catch {
    socket.destroy();
    return;
  }
  options.beforeRequest();
  const match = options.router.matchUpgrade(url.pathname);
  const routeKey = `WS ${match ? url.pathname : '(unknown route)'}`;
  options.counters.increment('requests', routeKey);
  const logged = options.requestLog.record({
    method: (request.method ?? 'GET').toUpperCase(),
    path: url.pathname,
    route: routeKey,
    ...arrived,
  });
  const decision = options.faults.decide('GET', url.pathname, { webSocket: true });
  const fault = decision.terminal;
  if (endedByFault(deps, socket, { fault, logged })) return;
  if (!match) {
    rejectUpgrade(socket, new HttpError(404, `no such WebSocket route: ${url.pathname}`), logged);
    return;
  }
  const open = acceptUpgrade(deps, { upgrade, url, match, fault, logged });
  if (!open) return;
  const start = () =>
    deps.webSockets.handleUpgrade(request, socket, head, (webSocket) => {
      if (fault) applyWebSocketFault(webSocket, fault);
      open(webSocket);
    });
  if (decision.latencyMs > 0) void abortableDelay(decision.latencyMs, deps.closing).then(start);
  else start();
}
