/**
 * Runs MCP servers over Streamable HTTP for hosts that connect to a URL.
 *
 * Stateless by default: each POST gets a fresh McpServer from the factory, built on the caller's shared
 * context, and is disposed of when its response ends, so clients that never send DELETE (the SDK client,
 * the Inspector, the conformance suite) leave nothing behind. Legacy stateful sessions (`sessions`) remain
 * for clients that need server-to-client requests (elicitation, roots); they are capped per tenant and
 * in all (a tenant over its own cap closes its own oldest idle session, never another tenant's), and
 * closed when idle. Responses are SSE either way (JSON responses would drop progress notifications).
 *
 * A request to the endpoint passes the Host/Origin check first (DNS rebinding: a web page must not reach
 * the server through a rebound name), then authentication when `access` requires it, and only then is its
 * body read. `/healthz` and `/readyz` answer without either, for load balancers and probes, which address
 * the server by IP; they reveal nothing about tenants or configuration. With OAuth configured, the RFC 9728
 * protected-resource metadata (`/.well-known/oauth-protected-resource`, and its variant suffixed with the
 * endpoint's path) is public too, since a client reads it before it has a token; a 401 names it in
 * `WWW-Authenticate: Bearer resource_metadata="…"`, as the MCP authorization spec asks.
 *
 * `GET /metrics` serves the process's metrics in Prometheus format. On the MCP endpoint's listener only with
 * `POLYMODAL_METRICS_TOKEN`, from any peer (a reverse proxy on this host makes every request look local);
 * on a listener of their own (`metricsListener`, `--metrics-port`, loopback by default) to loopback peers
 * without a token too (see `decideMetricsAccess`). Every request runs in a request
 * scope: its id (a well-formed `X-Request-Id` from the caller, or a new UUID) is echoed in the response's
 * `X-Request-Id` and carried by every JSON log line written while it is handled.
 *
 * Shutting down (`close()`, SIGTERM/SIGINT in the bin): the listener closes at once, so no new connection is
 * accepted; a request arriving on a connection already open gets 503 with `Retry-After` (a load balancer
 * sends it elsewhere). Tool calls waiting on a long job are told through the request scope's drain signal
 * and answer at once with their handle (done: false, the job id, `next`); other requests under way get the
 * grace time (10 s) to finish before their connections are cut.
 */
import { AsyncResource } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { type AddressInfo, isIPv6 } from 'node:net';
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import {
  type AuthInfo,
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  legacyStatelessFallback,
  type McpRequestContext,
} from '@modelcontextprotocol/server';
import { ConfigError } from '@polymodal/core/errors';
import type { Logger } from '../logging/create-logger.js';
import { type PolymodalMetrics, processMetrics } from '../metrics/create-metrics.js';
import { DEFAULT_METRICS_HOST } from '../metrics/metrics-access.js';
import { type MetricsListener, serveMetrics, startMetricsListener } from '../metrics/serve-metrics.js';
import { unauthenticatedBindProblem } from '../network/unauthenticated-bind-problem.js';
import { requestIdFrom, runInRequestScope } from '../scope/request-scope.js';
import type { AuthenticationResult, TenantAccess, TenantCaller } from '../tenants/create-tenant-access.js';
import {
  PROTECTED_RESOURCE_WELL_KNOWN,
  type ProtectedResource,
} from '../tenants/protected-resource-metadata.js';
import { TENANTS_FILE_VARIABLE } from '../tenants/read-tenants-file.js';
import {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_TENANT,
  DEFAULT_SESSION_IDLE_MS,
  type HttpSessionOptions,
} from './http-session-defaults.js';
import type { ProtocolGenerations } from './protocol-generations.js';
import type { ServerFactory, ServerInstance } from './server-instance.js';

export {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_TENANT,
  DEFAULT_SESSION_IDLE_MS,
  type HttpSessionOptions,
};
/** How long close() lets requests under way finish before cutting their connections. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

export interface RunHttpOptions {
  port: number;
  /** Interface to listen on, default 127.0.0.1 (loopback only). */
  host?: string;
  /** Host names accepted in the Host/Origin headers; loopback names are always accepted. */
  allowedHosts?: readonly string[];
  /** Endpoint path, default `/mcp`. */
  path?: string;
  /** Largest accepted JSON-RPC body, default 4 MiB. */
  maxBodyBytes?: number;
  log?: Logger;
  /** Build (and dispose) one server at startup so configuration errors surface before serving. Default true. */
  probe?: boolean;
  /**
   * Who may call, and the context each caller's servers are built on. Without it nobody is authenticated
   * and the factory gets no context (it brings its own state): loopback only.
   */
  access?: TenantAccess;
  /** Legacy stateful sessions instead of stateless requests (true for the defaults). */
  sessions?: boolean | HttpSessionOptions;
  /** Clock for session idle times, in milliseconds (tests); default Date.now. */
  now?: () => number;
  /** How long close() waits for requests under way (default 10 s). */
  shutdownGraceMs?: number;
  /** What `GET /metrics` serves (default: the process's metrics). */
  metrics?: PolymodalMetrics;
  /**
   * The bearer token scrapers send (POLYMODAL_METRICS_TOKEN): always needed on the MCP listener, off
   * loopback on the metrics listener; without it those requests get 403.
   */
  metricsToken?: string | undefined;
  /** Also serve `/metrics` on a listener of its own (`--metrics-port`; host default 127.0.0.1). */
  metricsListener?: { port: number; host?: string };
  /** Which protocol generations to answer (default both; `2025-11-25` refuses 2026-07-28 requests). */
  protocol?: ProtocolGenerations;
}

export interface HttpServerHandle {
  /** e.g. http://127.0.0.1:3000/mcp */
  url: string;
  port: number;
  /** The metrics listener's `/metrics` URL, when one was asked for. */
  metricsUrl: string | undefined;
  mode: 'stateless' | 'sessions';
  /** Number of open MCP sessions (always 0 when stateless). */
  sessions(): number;
  /** Number of McpServer instances alive: one per request under way, or one per open session. */
  instances(): number;
  /** Stops accepting, lets requests under way finish (within the grace time), closes every session. */
  close(): Promise<void>;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

interface Session {
  id: string;
  transport: NodeStreamableHTTPServerTransport;
  /** The tenant that opened the session; only its requests may use it. */
  tenantId: string | undefined;
  lastActive: number;
  /** POST and DELETE requests under way (a GET stream may stay open forever and does not count). */
  inFlight: number;
  /** Runs the instance's cleanup at most once, whichever path closes the session first. */
  dispose: () => Promise<void>;
}

export async function runHttpServer(
  factory: ServerFactory,
  options: RunHttpOptions,
): Promise<HttpServerHandle> {
  const host = options.host ?? '127.0.0.1';
  const endpoint = options.path ?? '/mcp';
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const allowed = allowedHostNames(host, options.allowedHosts);
  const access = options.access;
  const log = options.log;
  const clock = options.now ?? Date.now;
  const protocol = options.protocol ?? 'all';
  const stateful = options.sessions !== undefined && options.sessions !== false;
  const sessionOptions = typeof options.sessions === 'object' ? options.sessions : {};
  const maxSessions = sessionOptions.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const maxSessionsPerTenant = sessionOptions.maxSessionsPerTenant ?? DEFAULT_MAX_SESSIONS_PER_TENANT;
  const idleMs = sessionOptions.idleMs ?? DEFAULT_SESSION_IDLE_MS;
  if (!Number.isInteger(maxSessions) || maxSessions < 1) throw new Error('maxSessions must be at least 1');
  if (!Number.isInteger(maxSessionsPerTenant) || maxSessionsPerTenant < 1) {
    throw new Error('maxSessionsPerTenant must be at least 1');
  }
  if (!(idleMs > 0)) throw new Error('idleMs must be more than 0');

  const problem = unauthenticatedBindProblem(host, access?.authRequired === true);
  if (problem) throw new ConfigError(TENANTS_FILE_VARIABLE, problem);

  if (options.probe !== false) {
    const context = access?.probeContext();
    if (!access || context) {
      const probe = await factory(context ? { context } : undefined);
      await probe.cleanup();
    }
  }

  /** Most recently active last, so the idle sweep and the cap look at the front only. */
  const sessions = new Map<string, Session>();
  let openingSessions = 0;
  /** Sessions being opened, per tenant (the open mode's one caller under `undefined`). */
  const openingByTenant = new Map<string | undefined, number>();
  const startOpening = (tenantId: string | undefined) => {
    openingSessions += 1;
    openingByTenant.set(tenantId, (openingByTenant.get(tenantId) ?? 0) + 1);
  };
  const endOpening = (tenantId: string | undefined) => {
    openingSessions -= 1;
    const left = (openingByTenant.get(tenantId) ?? 1) - 1;
    if (left > 0) openingByTenant.set(tenantId, left);
    else openingByTenant.delete(tenantId);
  };
  let instances = 0;
  let requestsUnderWay = 0;
  const drainWaiters = new Set<() => void>();
  let shuttingDown = false;
  /** Aborted when shutdown starts: waits on long jobs end and answer with their handle. */
  const draining = new AbortController();
  const metrics = options.metrics ?? processMetrics();

  const buildInstance = async (caller: TenantCaller | undefined) => {
    const instance = await factory(caller ? { context: caller.context } : undefined);
    instances += 1;
    return { instance, dispose: disposeOnce(instance, log, () => (instances -= 1)) };
  };

  const touch = (session: Session) => {
    session.lastActive = clock();
    sessions.delete(session.id);
    sessions.set(session.id, session);
  };

  const closeSession = async (session: Session, why: string) => {
    if (sessions.get(session.id) !== session) return;
    sessions.delete(session.id);
    log?.debug(`MCP session closed: ${why}`, { sessions: sessions.size });
    await session.transport.close().catch(() => {});
    await session.dispose();
  };

  const sweepIdleSessions = () => {
    const now = clock();
    for (const session of sessions.values()) {
      if (now - session.lastActive < idleMs) break;
      if (session.inFlight === 0) void closeSession(session, 'idle');
    }
  };

  /**
   * Makes room for one more session of `tenantId`; false when that would close a session with a request
   * under way. A tenant at its own cap gives up its own least recently active idle session. At the global
   * cap, the session given up is one of the tenant holding the most (the caller's own when it holds as many
   * as anyone): so one tenant opening many sessions closes its own, never those of a tenant holding fewer.
   */
  const makeRoomForSession = (tenantId: string | undefined): boolean => {
    const held = new Map<string | undefined, number>(openingByTenant);
    for (const session of sessions.values())
      held.set(session.tenantId, (held.get(session.tenantId) ?? 0) + 1);
    const own = held.get(tenantId) ?? 0;
    // The open mode has one caller: only the global cap applies to it.
    const atTenantCap = tenantId !== undefined && own >= maxSessionsPerTenant;
    if (!atTenantCap && sessions.size + openingSessions < maxSessions) return true;
    let victim = tenantId;
    if (!atTenantCap) {
      let most = own;
      for (const [holder, count] of held) {
        if (count > most) {
          most = count;
          victim = holder;
        }
      }
    }
    for (const session of sessions.values()) {
      if (session.tenantId === victim && session.inFlight === 0) {
        void closeSession(
          session,
          atTenantCap
            ? "its tenant's session limit was reached and it was that tenant's least recently active"
            : 'the session limit was reached and it was the least recently active of the tenant holding the most',
        );
        return true;
      }
    }
    return false;
  };

  const unsubscribeRetired = access?.onRetired((tenantId) => {
    for (const session of sessions.values()) {
      if (session.tenantId === tenantId) void closeSession(session, 'its tenant was removed or rekeyed');
    }
  });
  const sweepTimer = stateful ? setInterval(sweepIdleSessions, Math.min(idleMs, 60_000)) : undefined;
  sweepTimer?.unref();

  /**
   * The SDK's per-request server for both generations (`createMcpHandler`): a fresh server from the factory
   * for each request, built on the caller's context, disposed of when the SDK closes it at the end of the
   * exchange. With sessions, it serves the 2026-07-28 requests only (the sessions are 2025-11-25's).
   */
  const mcpFactory = async ({ authInfo }: McpRequestContext) => {
    const caller = callerOf(authInfo);
    // Fail closed: a request that passed authentication always carries its caller this far.
    if (access && !caller) throw new Error('the request reached the MCP handler without its tenant');
    const { instance, dispose } = await buildInstance(caller);
    const previous = instance.server.server.onclose;
    instance.server.server.onclose = () => {
      previous?.();
      void dispose();
    };
    return instance.server;
  };
  const onHandlerError = (error: Error) => log?.debug('MCP request refused', { error: error.message });
  const perRequest =
    protocol === '2025-11-25'
      ? undefined
      : createMcpHandler(mcpFactory, {
          legacy: stateful ? 'reject' : 'stateless',
          maxRequestBodySize: maxBodyBytes,
          onerror: onHandlerError,
        });
  const legacyOnly =
    protocol === '2025-11-25' && !stateful
      ? legacyStatelessFallback(mcpFactory, onHandlerError, { maxRequestBodySize: maxBodyBytes })
      : undefined;

  const serveStateless = async (
    request: http.IncomingMessage,
    response: http.ServerResponse,
    caller: TenantCaller | undefined,
    body: unknown,
    legacy: boolean,
  ) => {
    if (request.method !== 'POST') {
      // No session means no GET stream to push on and nothing to DELETE; clients take 405 as "none".
      response.setHeader('allow', 'POST');
      sendJsonRpcError(
        response,
        405,
        -32000,
        'method not allowed: this server is stateless; send each JSON-RPC message as a POST',
      );
      return;
    }
    const handler = legacy && legacyOnly ? { fetch: legacyOnly } : perRequest;
    if (!handler) {
      sendUnsupportedProtocol(response, body);
      return;
    }
    const authInfo = authInfoOf(caller);
    await toNodeHandler({
      fetch: (webRequest, options) => handler.fetch(webRequest, { ...options, authInfo }),
    })(request, response, body);
  };

  const serveSession = async (
    request: http.IncomingMessage,
    response: http.ServerResponse,
    caller: TenantCaller | undefined,
    body: unknown,
  ) => {
    sweepIdleSessions();
    const sessionHeader = request.headers['mcp-session-id'];
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      // Another tenant's session answers as unknown, so session ids cannot be probed.
      if (!session || session.tenantId !== caller?.tenantId) {
        sendJsonRpcError(response, 404, -32001, 'session not found: start a new session with initialize');
        return;
      }
      touch(session);
      if (request.method !== 'GET') {
        session.inFlight += 1;
        response.once('close', () => {
          session.inFlight -= 1;
          if (sessions.get(session.id) === session) touch(session);
        });
      }
      await session.transport.handleRequest(request, response, body);
      return;
    }

    if (request.method !== 'POST' || !containsInitialize(body)) {
      sendJsonRpcError(response, 400, -32000, 'bad request: no valid mcp-session-id; send initialize first');
      return;
    }
    const tenantId = caller?.tenantId;
    if (!makeRoomForSession(tenantId)) {
      response.setHeader('retry-after', '5');
      sendJsonRpcError(response, 503, -32000, 'too many sessions, all busy: try again shortly');
      return;
    }
    startOpening(tenantId);
    let built: Awaited<ReturnType<typeof buildInstance>>;
    try {
      built = await buildInstance(caller);
    } catch (error) {
      endOpening(tenantId);
      throw error;
    }
    const { instance, dispose } = built;
    let opened = false;
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: false,
      onsessioninitialized: (id) => {
        opened = true;
        endOpening(tenantId);
        const session: Session = {
          id,
          transport,
          tenantId: caller?.tenantId,
          lastActive: clock(),
          inFlight: 1,
          dispose,
        };
        sessions.set(id, session);
        response.once('close', () => {
          session.inFlight -= 1;
          if (sessions.get(id) === session) touch(session);
        });
        log?.debug('MCP session opened', { sessions: sessions.size });
      },
      onsessionclosed: (id) => {
        const session = sessions.get(id);
        if (session) void closeSession(session, 'the client ended it');
      },
    });
    instance.server.server.onclose = () => {
      const id = transport.sessionId;
      if (id !== undefined && sessions.get(id)?.transport === transport) sessions.delete(id);
      void dispose();
    };
    try {
      await instance.server.connect(transport);
      await transport.handleRequest(request, response, body);
    } finally {
      if (!opened) {
        // The initialize failed: no session was made, so nothing may stay behind.
        endOpening(tenantId);
        void dispose();
      }
    }
  };

  const handle = async (request: http.IncomingMessage, response: http.ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname === '/metrics') {
      const hostAllowed = isAllowedHost(request.headers.host, allowed);
      await serveMetrics(request, response, {
        metrics,
        token: options.metricsToken,
        hostAllowed,
        listener: 'mcp',
        log,
      });
      return;
    }
    if (url.pathname === '/healthz') {
      sendJson(response, 200, { ok: true });
      return;
    }
    if (url.pathname === '/readyz') {
      let readiness = shuttingDown
        ? { ok: false, reason: 'the server is shutting down' }
        : ((await access?.ready()) ?? { ok: true });
      // The job store itself (the database, with PostgreSQL): without it paid tools refuse every call.
      if (readiness.ok) readiness = (await access?.probeContext()?.ready()) ?? readiness;
      sendJson(response, readiness.ok ? 200 : 503, readiness);
      return;
    }
    const protectedResource = access?.protectedResource;
    if (
      protectedResource &&
      (url.pathname === PROTECTED_RESOURCE_WELL_KNOWN ||
        url.pathname === `${PROTECTED_RESOURCE_WELL_KNOWN}${endpoint}`)
    ) {
      // Browser-based clients read it from another origin; it holds nothing secret.
      response.setHeader('access-control-allow-origin', '*');
      sendJson(response, 200, protectedResource.document);
      return;
    }
    if (url.pathname !== endpoint) {
      sendJsonRpcError(response, 404, -32601, `not found: the MCP endpoint is ${endpoint}`);
      return;
    }
    if (!isAllowedHost(request.headers.host, allowed)) {
      sendJsonRpcError(response, 403, -32000, 'forbidden: Host header is not an allowed host');
      return;
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !isAllowedOrigin(origin, allowed)) {
      sendJsonRpcError(response, 403, -32000, 'forbidden: Origin is not an allowed host');
      return;
    }
    if (shuttingDown) {
      response.setHeader('connection', 'close');
      response.setHeader('retry-after', '5');
      sendJsonRpcError(response, 503, -32000, 'the server is shutting down: try again shortly');
      return;
    }
    let caller: TenantCaller | undefined;
    if (access) {
      const result = await access.authenticate(request.headers.authorization);
      if (!result.ok) {
        // The reason never quotes the token, so it may be logged.
        log?.debug('refused an unauthenticated request', { reason: result.reason, why: result.message });
        sendRefusal(response, result, access.protectedResource);
        return;
      }
      caller = result.caller;
    }

    if (request.method !== 'GET') {
      requestsUnderWay += 1;
      response.once('close', () => {
        requestsUnderWay -= 1;
        if (requestsUnderWay === 0) for (const resolve of drainWaiters) resolve();
      });
    }
    const body = request.method === 'POST' ? await readJsonBody(request, response, maxBodyBytes) : undefined;
    if (body === INVALID) return;
    // The SDK's own classification: 2025-11-25 (no per-request envelope) or 2026-07-28.
    const legacy =
      request.method !== 'POST' || (await isLegacyRequest(await toWebRequest(request, body), body));
    if (stateful && legacy) await serveSession(request, response, caller, body);
    else await serveStateless(request, response, caller, body, legacy);
  };

  const server = http.createServer((request, response) => {
    const requestId = requestIdFrom(request.headers['x-request-id']);
    response.setHeader('x-request-id', requestId);
    runInRequestScope({ requestId, draining: draining.signal }, () => {
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
      handle(request, response).catch((error: unknown) => {
        log?.error('HTTP request failed', {
          error: error instanceof Error ? error.message : String(error),
        });
        if (!response.headersSent) sendJsonRpcError(response, 500, -32603, 'internal error');
        else response.end();
      });
    });
  });

  // Bound first: a metrics port that cannot be served stops the start before the MCP endpoint listens.
  let metricsListener: MetricsListener | undefined;
  if (options.metricsListener) {
    const metricsHost = options.metricsListener.host ?? DEFAULT_METRICS_HOST;
    const metricsAllowed = allowedHostNames(metricsHost, [...allowed]);
    metricsListener = await startMetricsListener({
      port: options.metricsListener.port,
      host: metricsHost,
      metrics,
      token: options.metricsToken,
      isAllowedHost: (header) => isAllowedHost(header, metricsAllowed),
      log,
    });
  }
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await metricsListener?.close();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  const waitForRequests = async (graceMs: number) => {
    if (requestsUnderWay === 0) return;
    let timer: NodeJS.Timeout | undefined;
    let done: (() => void) | undefined;
    await new Promise<void>((resolve) => {
      done = resolve;
      drainWaiters.add(resolve);
      timer = setTimeout(resolve, graceMs);
    });
    clearTimeout(timer);
    if (done) drainWaiters.delete(done);
  };

  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}${endpoint}`,
    port,
    metricsUrl: metricsListener?.url,
    mode: stateful ? 'sessions' : 'stateless',
    sessions: () => sessions.size,
    instances: () => instances,
    close() {
      closing ??= (async () => {
        shuttingDown = true;
        // Before anything else: calls waiting on a long job answer with their handle while the
        // connections are still open.
        draining.abort(new Error('the server is shutting down'));
        if (sweepTimer) clearInterval(sweepTimer);
        unsubscribeRetired?.();
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await waitForRequests(options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS);
        await Promise.allSettled([...sessions.values()].map((session) => closeSession(session, 'shutdown')));
        server.closeAllConnections();
        await perRequest?.close();
        await Promise.all([stopped, metricsListener?.close()]);
      })();
      return closing;
    },
  };
}

function disposeOnce(
  instance: ServerInstance,
  log: Logger | undefined,
  onDisposed: () => void,
): () => Promise<void> {
  let disposed: Promise<void> | undefined;
  return () => {
    disposed ??= (async () => {
      try {
        await instance.server.close();
        await instance.cleanup();
      } catch (error) {
        log?.warning('server cleanup failed', {
          error: error instanceof Error ? error.message : String(error),
        });
      } finally {
        onDisposed();
      }
    })();
    return disposed;
  };
}

function allowedHostNames(host: string, extra: readonly string[] | undefined): Set<string> {
  const names = new Set(LOOPBACK_NAMES);
  const wildcard = host === '0.0.0.0' || host === '::' || host === '[::]';
  for (const name of [...(wildcard ? [] : [host]), ...(extra ?? [])]) {
    const normalized = normalizeHostName(name);
    if (normalized) names.add(normalized);
  }
  return names;
}

/** A name as `new URL()` spells the hostname of a Host header (lower case, IPv6 in brackets, no port). */
function normalizeHostName(name: string): string | undefined {
  const bare = name.trim().replace(/^\[(.*)\]$/, '$1');
  if (bare === '') return undefined;
  try {
    return new URL(`http://${isIPv6(bare) ? `[${bare}]` : bare}`).hostname;
  } catch {
    return undefined;
  }
}

function isAllowedHost(header: string | undefined, allowed: Set<string>): boolean {
  if (!header) return false;
  try {
    return allowed.has(new URL(`http://${header}`).hostname.toLowerCase());
  } catch {
    return false;
  }
}

function isAllowedOrigin(origin: string, allowed: Set<string>): boolean {
  try {
    return allowed.has(new URL(origin).hostname.toLowerCase());
  } catch {
    return false;
  }
}

function containsInitialize(body: unknown): boolean {
  return Array.isArray(body)
    ? body.some((message) => isInitializeRequest(message))
    : isInitializeRequest(body);
}

const INVALID = Symbol('invalid body');

async function readJsonBody(
  request: http.IncomingMessage,
  response: http.ServerResponse,
  maxBytes: number,
): Promise<unknown | typeof INVALID> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      sendJsonRpcError(response, 413, -32000, `request body exceeds ${maxBytes} bytes`);
      request.destroy();
      return INVALID;
    }
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    sendJsonRpcError(response, 400, -32700, 'parse error: the body is not valid JSON');
    return INVALID;
  }
}

/**
 * RFC 6750: a missing token gets the challenge alone; a wrong one says `invalid_token`. With OAuth the
 * challenge names the protected-resource metadata (RFC 9728 §5.1), where a client finds whom to ask for a
 * token. A valid token for a tenant not served here is 403 without a challenge: a new token would not help.
 */
function sendRefusal(
  response: http.ServerResponse,
  result: Exclude<AuthenticationResult, { ok: true }>,
  protectedResource: ProtectedResource | undefined,
): void {
  if (result.reason === 'forbidden') {
    sendJsonRpcError(response, 403, -32001, `forbidden: ${result.message}`);
    return;
  }
  if (result.reason === 'unavailable') {
    response.setHeader('retry-after', '5');
    sendJsonRpcError(response, 503, -32000, `${result.message}; try again shortly`);
    return;
  }
  const challenge = protectedResource
    ? `Bearer realm="polymodal", resource_metadata="${protectedResource.metadataUrl}"`
    : 'Bearer realm="polymodal"';
  const description = result.message ?? 'the bearer token is not valid';
  response.setHeader(
    'www-authenticate',
    result.reason === 'missing_token'
      ? challenge
      : `${challenge}, error="invalid_token", error_description="${description.replace(/["\\]/g, "'")}"`,
  );
  sendJsonRpcError(
    response,
    401,
    -32001,
    result.reason === 'missing_token'
      ? protectedResource
        ? `unauthorized: send "Authorization: Bearer <token>" with an access token from ${protectedResource.document.authorization_servers[0]} (see ${protectedResource.metadataUrl})`
        : 'unauthorized: send "Authorization: Bearer <token>" with a token this server was given'
      : `unauthorized: ${description}`,
  );
}

/** Where the SDK's handler hands the authenticated caller to the factory (`AuthInfo.extra`). */
const CALLER = 'polymodal/caller';

/** The caller as the SDK's request context carries it. Its token is not handed on: nothing past here needs it. */
function authInfoOf(caller: TenantCaller | undefined): AuthInfo | undefined {
  return caller
    ? { token: '', clientId: caller.tenantId ?? 'local', scopes: [], extra: { [CALLER]: caller } }
    : undefined;
}

function callerOf(authInfo: AuthInfo | undefined): TenantCaller | undefined {
  return authInfo?.extra?.[CALLER] as TenantCaller | undefined;
}

/**
 * A 2026-07-28 request to a server that serves 2025-11-25 only: the protocol's "unsupported protocol
 * version" (-32022), naming the one version served, so that a client that negotiates falls back.
 */
function sendUnsupportedProtocol(response: http.ServerResponse, body: unknown): void {
  const id = isJsonRpcRequest(body) ? body.id : null;
  response.writeHead(400, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      error: {
        code: -32022,
        message: 'Unsupported protocol version: this server is configured to serve 2025-11-25 only',
        data: { supported: ['2025-11-25'] },
      },
    }),
  );
}

function isJsonRpcRequest(body: unknown): body is { id: string | number } {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number';
}

function sendJson(response: http.ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  response.end(JSON.stringify(body));
}

function sendJsonRpcError(
  response: http.ServerResponse,
  status: number,
  code: number,
  message: string,
): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
