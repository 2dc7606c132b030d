/**
 * The HTTP (and WebSocket upgrade) server shared by all services. Per request: route match (404/405),
 * counting and logging, faults (latency, status, reset before/after, truncate, auth unavailable, hang;
 * on open WebSockets stall and malformed frames), the handler, then the answer. Handlers return a response
 * object so that faults apply to every route the same way.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { WebSocketServer } from 'ws';
import { abortableDelay } from './abortable-delay.js';
import { applyWebSocketFault } from './apply-web-socket-fault.js';
import type { Authenticator, KeyScheme, Principal } from './authenticator.js';
import type { Clock } from './clock.js';
import type { CounterRegistry } from './counters.js';
import type { FaultEngine } from './fault-engine.js';
import type { FaultRule } from './fault-rule.js';
import { HttpError } from './http-error.js';
import { readJsonBody } from './read-json-body.js';
import type { RequestContext } from './request-context.js';
import type { LoggedRequest, RequestLog } from './request-log.js';
import type { Router } from './router.js';
import type { SandboxResponse } from './sandbox-response.js';

export const CONTROL_PREFIX = '/__sandbox/';

export interface SandboxServerOptions {
  router: Router;
  /** Routes of the control surface (under `/__sandbox/`): never faulted, never counted, no auth. */
  controlRouter: Router;
  faults: FaultEngine;
  counters: CounterRegistry;
  /** Every request and upgrade outside the control routes is appended here. */
  requestLog: RequestLog;
  /** The sandbox clock, read for each request's `clockAt`. */
  clock: Clock;
  authenticator: Authenticator;
  /** Runs before each request (brings lazily computed state up to the clock). */
  beforeRequest(): void;
  /** Unexpected handler errors (answered as 500); the default writes one line to stderr. */
  onError?: (error: unknown) => void;
}

export interface SandboxServer {
  listen(options: { port: number; host: string }): Promise<string>;
  close(): Promise<void>;
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** Ends the connection abruptly: a TCP reset when the platform supports it, else a plain destroy. */
function resetSocket(socket: Socket | null): void {
  if (!socket || socket.destroyed) return;
  const withReset = socket as Socket & { resetAndDestroy?: () => void };
  if (typeof withReset.resetAndDestroy === 'function') withReset.resetAndDestroy();
  else socket.destroy();
}

function errorResponse(error: HttpError): SandboxResponse {
  return {
    status: error.status,
    headers: error.headers,
    body: { ...error.fields, error: error.message },
    bodyKind: 'json',
  };
}

function faultResponse(rule: FaultRule): SandboxResponse {
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

async function send(
  request: IncomingMessage,
  response: ServerResponse,
  answer: SandboxResponse,
  fault: FaultRule | undefined,
  logged: LoggedRequest | undefined,
): Promise<void> {
  if (fault?.kind === 'reset-after') {
    // The handler ran in full (a job may exist now); the client only sees the connection drop.
    resetSocket(request.socket);
    return;
  }
  const { headers, body } = serialize(answer);
  headers['cache-control'] ??= 'no-store';
  response.writeHead(answer.status, headers);
  if (logged) {
    logged.status = answer.status;
    const retryAfter = Number(headers['retry-after']);
    // Delta-seconds only (what the platform sends); an HTTP date is not recorded.
    if (headers['retry-after'] !== undefined && Number.isFinite(retryAfter))
      logged.retryAfterSeconds = retryAfter;
  }
  if (fault?.kind === 'truncate') {
    // Full Content-Length announced, half the body sent, then the connection drops.
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
    return;
  }
  if (body instanceof Readable) {
    await pipeline(body, response).catch(() => resetSocket(request.socket));
  } else {
    response.end(body);
  }
}

export function createSandboxServer(options: SandboxServerOptions): SandboxServer {
  const onError =
    options.onError ??
    ((error: unknown) => {
      process.stderr.write(
        `polymodal-sandbox: internal error: ${(error as Error)?.stack ?? String(error)}\n`,
      );
    });
  const closing = new AbortController();

  /** Resolves when the signal aborts: a hung request ends only when its client or the sandbox goes away. */
  const untilAborted = (signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });

  // Taken first thing, so that a latency fault or a slow handler does not move a request's arrival.
  const arrival = () => ({ at: Date.now(), clockAt: options.clock.now() });

  /** Authenticates and, on success, notes the user in the request's log entry. */
  const authenticateLogged =
    (authenticate: (schemes: readonly KeyScheme[]) => Principal, logged: LoggedRequest | undefined) =>
    (schemes: readonly KeyScheme[]): Principal => {
      const principal = authenticate(schemes);
      if (logged) logged.user = principal.user.id;
      return principal;
    };

  async function dispatch(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const arrived = arrival();
    const method = (request.method ?? 'GET').toUpperCase();
    let url: URL;
    try {
      url = new URL(request.url ?? '/', 'http://sandbox.invalid');
    } catch {
      const logged = options.requestLog.record({
        method,
        // Never the query string: it may carry an api_key.
        path: (request.url ?? '/').split('?')[0] ?? '/',
        route: `${method} (unknown route)`,
        ...arrived,
      });
      await send(
        request,
        response,
        errorResponse(new HttpError(400, 'malformed request URL')),
        undefined,
        logged,
      );
      return;
    }
    const requestAbort = new AbortController();
    response.on('close', () => requestAbort.abort());
    const signal = AbortSignal.any([requestAbort.signal, closing.signal]);

    const isControl = url.pathname.startsWith(CONTROL_PREFIX);
    options.beforeRequest();
    const router = isControl ? options.controlRouter : options.router;
    const match = router.match(method, url.pathname);

    let fault: FaultRule | undefined;
    let retryAfter: string | undefined;
    let logged: LoggedRequest | undefined;
    if (!isControl) {
      options.counters.increment('requests', match.routeKey);
      logged = options.requestLog.record({ method, path: url.pathname, route: match.routeKey, ...arrived });
      const decision = options.faults.decide(method, url.pathname);
      if (decision.latencyMs > 0) await abortableDelay(decision.latencyMs, signal);
      if (signal.aborted) return;
      fault = decision.terminal;
      retryAfter = decision.retryAfter;
      if (fault?.kind === 'reset-before') {
        resetSocket(request.socket);
        return;
      }
      if (fault?.kind === 'hang') {
        // The handler never runs and nothing is sent; close() destroys the connection, so it cannot wait.
        await untilAborted(signal);
        return;
      }
      if (fault?.kind === 'status') {
        await send(request, response, faultResponse(fault), undefined, logged);
        return;
      }
    }

    let answer: SandboxResponse;
    try {
      if (match.kind === 'not-found') {
        throw new HttpError(404, `no such route: ${method} ${url.pathname}`);
      }
      if (match.kind === 'method-not-allowed') {
        throw new HttpError(405, `method ${method} not allowed here; allowed: ${match.allow.join(', ')}`, {
          headers: { allow: match.allow.join(', ') },
        });
      }
      const authUnavailable = fault?.kind === 'auth-unavailable';
      const context: RequestContext = {
        request,
        method,
        url,
        params: match.params,
        routeKey: match.routeKey,
        signal,
        authenticate: authenticateLogged(
          (schemes) =>
            options.authenticator.authenticate(request, url, { schemes, unavailable: authUnavailable }),
          logged,
        ),
        readJson: (maxBytes) => readJsonBody(request, maxBytes),
      };
      answer = await match.handler(context);
    } catch (error) {
      if (HttpError.isInstance(error)) {
        answer = errorResponse(error);
      } else {
        onError(error);
        answer = errorResponse(new HttpError(500, 'internal error in the sandbox'));
      }
    }
    if (retryAfter !== undefined && answer.status < 400) {
      answer = { ...answer, headers: { ...answer.headers, 'retry-after': retryAfter } };
    }
    if (response.destroyed || request.socket.destroyed) return;
    await send(request, response, answer, fault?.kind === 'auth-unavailable' ? undefined : fault, logged);
  }

  const webSockets = new WebSocketServer({ noServer: true });

  function rejectUpgrade(socket: Socket, error: HttpError, logged: LoggedRequest | undefined): void {
    if (logged) logged.status = error.status;
    const body = JSON.stringify({ ...error.fields, error: error.message });
    const reason = error.status === 404 ? 'Not Found' : error.status === 401 ? 'Unauthorized' : 'Error';
    socket.end(
      `HTTP/1.1 ${error.status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }

  function handleUpgrade(request: IncomingMessage, socket: Socket, head: Buffer): void {
    const arrived = arrival();
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
    if (fault?.kind === 'hang') {
      // Never answered, never upgraded; upgraded sockets are not the HTTP server's to close, so close()
      // destroys this one itself.
      const destroy = () => socket.destroy();
      if (closing.signal.aborted) destroy();
      closing.signal.addEventListener('abort', destroy, { once: true });
      socket.once('close', () => closing.signal.removeEventListener('abort', destroy));
      return;
    }
    if (fault?.kind === 'reset-before' || fault?.kind === 'reset-after' || fault?.kind === 'truncate') {
      resetSocket(socket);
      return;
    }
    if (fault?.kind === 'status') {
      rejectUpgrade(
        socket,
        new HttpError(fault.status ?? 500, `simulated fault: HTTP ${fault.status ?? 500}`, {
          headers: fault.retryAfter ? { 'retry-after': fault.retryAfter } : {},
        }),
        logged,
      );
      return;
    }
    if (!match) {
      rejectUpgrade(socket, new HttpError(404, `no such WebSocket route: ${url.pathname}`), logged);
      return;
    }
    let open: ReturnType<typeof match.handler>;
    try {
      open = match.handler({
        request,
        url,
        params: match.params,
        authenticate: authenticateLogged(
          (schemes) =>
            options.authenticator.authenticate(request, url, {
              schemes,
              unavailable: fault?.kind === 'auth-unavailable',
            }),
          logged,
        ),
      });
    } catch (error) {
      if (HttpError.isInstance(error)) rejectUpgrade(socket, error, logged);
      else {
        onError(error);
        rejectUpgrade(socket, new HttpError(500, 'internal error in the sandbox'), logged);
      }
      return;
    }
    const start = () =>
      webSockets.handleUpgrade(request, socket, head, (webSocket) => {
        if (fault) applyWebSocketFault(webSocket, fault);
        open(webSocket);
      });
    if (decision.latencyMs > 0) void abortableDelay(decision.latencyMs, closing.signal).then(start);
    else start();
  }

  let server: Server | undefined;

  return {
    listen({ port, host }) {
      server = createServer((request, response) => {
        dispatch(request, response).catch((error) => {
          onError(error);
          resetSocket(request.socket);
        });
      });
      server.on('upgrade', handleUpgrade);
      // Idle connections live 75 s (a common proxy default) instead of Node's 5: a client reuses one for the
      // announced time less a margin (undici: 2 s) by its own timers, so a client whose event loop stalled
      // past that margin (a busy machine; in tests the client often shares the sandbox's process) sent on a
      // connection closed meanwhile, and its POST failed with an ECONNRESET that may not be retried.
      server.keepAliveTimeout = 75_000;
      // A client error (malformed HTTP) must not crash the process.
      server.on('clientError', (_error, socket) => socket.destroy());
      const listening = server;
      return new Promise((resolve, reject) => {
        listening.once('error', reject);
        listening.listen(port, host, () => {
          listening.off('error', reject);
          const address = listening.address();
          const actualPort = typeof address === 'object' && address ? address.port : port;
          resolve(`http://${formatHost(host)}:${actualPort}`);
        });
      });
    },
    async close() {
      closing.abort();
      for (const client of webSockets.clients) client.terminate();
      webSockets.close();
      const running = server;
      if (!running) return;
      await new Promise<void>((resolve) => {
        running.close(() => resolve());
        running.closeAllConnections();
      });
    },
  };
}
