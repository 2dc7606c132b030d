/**
 * Runs MCP servers over Streamable HTTP for hosts that connect to a URL: the routes, the guards in front of
 * the MCP endpoint, listening, and closing. Each part is a module of its own under `src/http/`.
 *
 * | path                                       | what answers                                  | guards          |
 * | ------------------------------------------ | --------------------------------------------- | --------------- |
 * | `/metrics`                                 | Prometheus metrics (`serveMetrics`)           | its own token   |
 * | `/healthz`, `/readyz`                      | liveness and readiness, for probes            | none            |
 * | `/.well-known/oauth-protected-resource[…]` | RFC 9728 metadata, with OAuth only            | none (public)   |
 * | the endpoint (`/mcp`)                      | a legacy session, or the per-request service  | see below       |
 *
 * The endpoint's guards run in this order (`mcp-endpoint.ts`): Host/Origin (`allowed-hosts.ts`, DNS
 * rebinding), the drain (`shutdown-drain.ts`), authentication and tenants (`authenticate-request.ts`), and
 * the body limit and JSON parsing (`read-json-body.ts`); a path no route lists is 404.
 *
 * Stateless by default: each request gets a fresh server from the factory, on the caller's context
 * (`per-request-service.ts`). Legacy stateful sessions (`sessions`) serve 2025-11-25 clients that need the
 * server to ask them things (`legacy-session-service.ts`). Every request runs in a request scope that
 * carries its id and the drain signal (`serve-in-request-scope.ts`). On `close()` (SIGTERM/SIGINT in the
 * bin) the listener stops accepting at once and the drain takes over (`shutdown-drain.ts`).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '@polymodal/core/errors';
import { allowedHosts } from '../http/allowed-hosts.js';
import { serveHealth, serveReadiness } from '../http/health-routes.js';
import { sendJsonRpcError } from '../http/json-responses.js';
import { createLegacySessionService } from '../http/legacy-session-service.js';
import { listen } from '../http/listen.js';
import { serveMcpEndpoint } from '../http/mcp-endpoint.js';
import { createPerRequestService } from '../http/per-request-service.js';
import { protectedResourceRoute } from '../http/protected-resource-route.js';
import { type Route, routeRequests } from '../http/route-table.js';
import { serveInRequestScope } from '../http/serve-in-request-scope.js';
import { createServerInstances, probeServerFactory } from '../http/server-instances.js';
import { readSessionLimits } from '../http/session-limits.js';
import {
  createShutdownDrain,
  DEFAULT_SHUTDOWN_GRACE_MS,
  type ShutdownDrain,
} from '../http/shutdown-drain.js';
import type { Logger } from '../logging/create-logger.js';
import { type PolymodalMetrics, processMetrics } from '../metrics/create-metrics.js';
import { DEFAULT_METRICS_HOST } from '../metrics/metrics-access.js';
import { serveMetrics, startMetricsListener } from '../metrics/serve-metrics.js';
import { unauthenticatedBindProblem } from '../network/unauthenticated-bind-problem.js';
import type { TenantAccess } from '../tenants/create-tenant-access.js';
import { TENANTS_FILE_VARIABLE } from '../tenants/read-tenants-file.js';
import {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_TENANT,
  DEFAULT_SESSION_IDLE_MS,
  type HttpSessionOptions,
} from './http-session-defaults.js';
import type { ProtocolGenerations } from './protocol-generations.js';
import type { ServerFactory } from './server-instance.js';

export {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_TENANT,
  DEFAULT_SESSION_IDLE_MS,
  DEFAULT_SHUTDOWN_GRACE_MS,
  type HttpSessionOptions,
};

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

export async function runHttpServer(
  factory: ServerFactory,
  options: RunHttpOptions,
): Promise<HttpServerHandle> {
  const { access, log } = options;
  const host = options.host ?? '127.0.0.1';
  const endpoint = options.path ?? '/mcp';
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const allowed = allowedHosts(host, options.allowedHosts);
  const problem = unauthenticatedBindProblem(host, access?.authRequired === true);
  if (problem) throw new ConfigError(TENANTS_FILE_VARIABLE, problem);
  if (options.probe !== false) await probeServerFactory(factory, access);

  const metrics = options.metrics ?? processMetrics();
  const drain = createShutdownDrain();
  const { instances, sessions, perRequest } = mcpServices(factory, { ...options, maxBodyBytes });
  const routes = endpointRoutes({
    endpoint,
    metrics,
    metricsToken: options.metricsToken,
    allowed,
    drain,
    access,
    mcp: serveMcpEndpoint({ allowed, drain, access, maxBodyBytes, sessions, perRequest, log }),
    log,
  });
  const notFound = (_request: http.IncomingMessage, response: http.ServerResponse) =>
    sendJsonRpcError(response, 404, -32601, `not found: the MCP endpoint is ${endpoint}`);
  const server = http.createServer(
    serveInRequestScope(routeRequests(routes, notFound), { draining: drain.signal, log }),
  );

  // Bound first: a metrics port that cannot be served stops the start before the MCP endpoint listens.
  const metricsListener = options.metricsListener
    ? await startMetricsListener({
        port: options.metricsListener.port,
        host: options.metricsListener.host ?? DEFAULT_METRICS_HOST,
        metrics,
        token: options.metricsToken,
        isAllowedHost: allowedHosts(options.metricsListener.host ?? DEFAULT_METRICS_HOST, allowed.names)
          .acceptsHost,
        log,
      })
    : undefined;
  try {
    await listen(server, options.port, host);
  } catch (error) {
    await metricsListener?.close();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}${endpoint}`,
    port,
    metricsUrl: metricsListener?.url,
    mode: sessions ? 'sessions' : 'stateless',
    sessions: () => sessions?.size() ?? 0,
    instances: () => instances.alive(),
    close: once(async () => {
      // Before anything else: calls waiting on a long job answer with their handle while the
      // connections are still open.
      drain.start();
      sessions?.stopHousekeeping();
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await drain.waitForRequests(options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS);
      await sessions?.closeAll();
      server.closeAllConnections();
      await perRequest.close();
      await Promise.all([stopped, metricsListener?.close()]);
    }),
  };
}

/** `run` the first time, and the same promise every time after. */
function once(run: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => {
    running ??= run();
    return running;
  };
}

/** The HTTP listener's routes: metrics, the probes, the protected-resource metadata and the MCP endpoint. */
function endpointRoutes(options: {
  endpoint: string;
  metrics: PolymodalMetrics;
  metricsToken: string | undefined;
  allowed: ReturnType<typeof allowedHosts>;
  drain: ShutdownDrain;
  access: TenantAccess | undefined;
  mcp: Route['serve'];
  log: Logger | undefined;
}): Route[] {
  const { endpoint, metrics, allowed, drain, access, log } = options;
  const protectedResource = access?.protectedResource;
  return [
    {
      name: 'metrics',
      paths: ['/metrics'],
      serve: (request, response) =>
        serveMetrics(request, response, {
          metrics,
          token: options.metricsToken,
          hostAllowed: allowed.acceptsHost(request.headers.host),
          listener: 'mcp',
          log,
        }),
    },
    { name: 'liveness', paths: ['/healthz'], serve: (_request, response) => serveHealth(response) },
    {
      name: 'readiness',
      paths: ['/readyz'],
      serve: (_request, response) => serveReadiness(response, access, drain),
    },
    ...(protectedResource ? [protectedResourceRoute(endpoint, protectedResource)] : []),
    { name: 'MCP endpoint', paths: [endpoint], serve: options.mcp },
  ];
}

/**
 * What answers the MCP endpoint: server instances built by `factory`, the per-request service (both
 * protocol generations) and, when sessions are asked for, the 2025-11-25 session table.
 */
function mcpServices(factory: ServerFactory, options: RunHttpOptions & { maxBodyBytes: number }) {
  const { access, log } = options;
  const sessionLimits = readSessionLimits(options.sessions);
  const instances = createServerInstances(factory, log);
  const sessions = sessionLimits
    ? createLegacySessionService({
        limits: sessionLimits,
        instances,
        access,
        clock: options.now ?? Date.now,
        log,
      })
    : undefined;
  const perRequest = createPerRequestService({
    instances,
    access,
    protocol: options.protocol ?? 'all',
    sessions: sessions !== undefined,
    maxBodyBytes: options.maxBodyBytes,
    log,
  });
  return { instances, sessions, perRequest };
}
