/**
 * `GET /metrics` in Prometheus format, on either listener (see `decideMetricsAccess` for who may read it
 * where), and the metrics' own listener (`--metrics-port`): a plain HTTP server that answers `/metrics`
 * and nothing else, so a reverse proxy put in front of the MCP endpoint never exposes it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '@polymodal/core/errors';
import { sendJson } from '../http/json-responses.js';
import { listen } from '../http/listen.js';
import type { Logger } from '../logging/create-logger.js';
import { isLoopbackHost } from '../network/unauthenticated-bind-problem.js';
import type { PolymodalMetrics } from './create-metrics.js';
import { DEFAULT_METRICS_HOST, decideMetricsAccess, METRICS_TOKEN_VARIABLE } from './metrics-access.js';

export interface ServeMetricsOptions {
  metrics: PolymodalMetrics;
  token: string | undefined;
  /** Whether the Host header names this server (a loopback name or an allowed host). */
  hostAllowed: boolean;
  listener: 'metrics' | 'mcp';
  log: Logger | undefined;
}

export async function serveMetrics(
  request: http.IncomingMessage,
  response: http.ServerResponse,
  options: ServeMetricsOptions,
): Promise<void> {
  const { metrics, token, hostAllowed, listener, log } = options;
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('allow', 'GET, HEAD');
    sendJson(response, 405, { error: 'method not allowed: GET /metrics' });
    return;
  }
  const decision = decideMetricsAccess(
    { listener, remoteAddress: request.socket.remoteAddress, hostAllowed, headers: request.headers },
    token,
  );
  if (!decision.ok) {
    log?.debug('refused a /metrics request', { status: decision.status, listener });
    if (decision.status === 401) response.setHeader('www-authenticate', 'Bearer realm="polymodal-metrics"');
    sendJson(response, decision.status, { error: decision.message });
    return;
  }
  const { contentType, body } = await metrics.render();
  response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
  response.end(request.method === 'HEAD' ? undefined : body);
}

export interface MetricsListenerOptions {
  port: number;
  /** Default 127.0.0.1: only this machine reaches it. */
  host?: string;
  metrics: PolymodalMetrics;
  token: string | undefined;
  /** Whether a Host header names this server (the MCP listener's check, plus the metrics host itself). */
  isAllowedHost: (header: string | undefined) => boolean;
  log: Logger | undefined;
}

export interface MetricsListener {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Starts the metrics' own listener. Off loopback it needs POLYMODAL_METRICS_TOKEN (a ConfigError before
 * binding otherwise), like the MCP endpoint needs authentication there.
 */
export async function startMetricsListener(options: MetricsListenerOptions): Promise<MetricsListener> {
  const host = options.host ?? DEFAULT_METRICS_HOST;
  if (!isLoopbackHost(host) && !options.token?.trim()) {
    throw new ConfigError(
      METRICS_TOKEN_VARIABLE,
      `refusing to serve metrics on ${host} without ${METRICS_TOKEN_VARIABLE}: set it (scrapers then send "Authorization: Bearer <token>") or keep --metrics-host on loopback.`,
    );
  }
  const server = http.createServer((request, response) => {
    const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (pathname !== '/metrics') {
      sendJson(response, 404, { error: 'not found: this port serves /metrics only' });
      return;
    }
    serveMetrics(request, response, {
      metrics: options.metrics,
      token: options.token,
      hostAllowed: options.isAllowedHost(request.headers.host),
      listener: 'metrics',
      log: options.log,
    }).catch((error: unknown) => {
      options.log?.error('metrics request failed', {
        error: error instanceof Error ? error.message : String(error),
      });
      if (!response.headersSent) sendJson(response, 500, { error: 'internal error' });
      else response.end();
    });
  });
  await listen(server, options.port, host);
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/metrics`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
