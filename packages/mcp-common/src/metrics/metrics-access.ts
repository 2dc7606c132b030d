/**
 * Who may read `GET /metrics`. The metrics name no tenant and no secret, but they describe the service's
 * load and its platform key's trouble, so they are not public.
 *
 * On a listener of their own (`--metrics-port`, loopback by default), a request from this machine (a
 * loopback peer, e.g. a Prometheus agent beside the server) reads them without a token; from anywhere else
 * it must send `Authorization: Bearer <POLYMODAL_METRICS_TOKEN>` (compared in constant time), and without
 * that variable nobody off the machine may read them (403). A loopback peer that sends `Forwarded` or
 * `X-Forwarded-For` is a reverse proxy relaying someone else's request, so it is treated as off loopback;
 * the free read also needs an allowed Host header (DNS rebinding: a web page whose name was rebound to
 * 127.0.0.1 must not read them).
 *
 * On the MCP endpoint's listener, loopback is never trusted: a reverse proxy on the same host (which sends
 * no `X-Forwarded-For` unless told to) makes every request there come from loopback, so `/metrics` there
 * always needs the token, and is refused (403) without one configured.
 *
 * The MCP tenants' tokens play no part: a scraper is not a tenant, and a tenant's token must not unlock
 * operators' data. A valid token is enough by itself, since a browser cannot be made to send it.
 */
import { classifyAddress } from '@polymodal/core/net';

export const METRICS_TOKEN_VARIABLE = 'POLYMODAL_METRICS_TOKEN';
/** Where the metrics' own listener binds unless told otherwise: only this machine reaches it. */
export const DEFAULT_METRICS_HOST = '127.0.0.1';

export interface MetricsRequest {
  /** Which listener took the request: the metrics' own, or the MCP endpoint's (loopback not trusted). */
  listener: 'metrics' | 'mcp';
  /** The TCP peer's address (`socket.remoteAddress`). */
  remoteAddress: string | undefined;
  /** Whether the Host header names this server (a loopback name or an allowed host). */
  hostAllowed: boolean;
  headers: {
    authorization?: string | undefined;
    forwarded?: string | undefined;
    'x-forwarded-for'?: string | string[] | undefined;
  };
}

export type MetricsAccess = { ok: true } | { ok: false; status: 401 | 403; message: string };

export function decideMetricsAccess(request: MetricsRequest, token: string | undefined): MetricsAccess {
  const proxied = request.headers.forwarded !== undefined || request.headers['x-forwarded-for'] !== undefined;
  const trusted = request.listener === 'metrics' && !proxied && request.hostAllowed;
  if (trusted && isLoopbackPeer(request.remoteAddress)) return { ok: true };
  const expected = token?.trim();
  if (!expected) {
    return {
      ok: false,
      status: 403,
      message:
        request.listener === 'metrics'
          ? `forbidden: /metrics is served off this machine only with ${METRICS_TOKEN_VARIABLE} set`
          : `forbidden: /metrics on the MCP port needs ${METRICS_TOKEN_VARIABLE}; or serve it on a loopback port of its own with --metrics-port`,
    };
  }
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
  if (presented === undefined || !sameSecret(presented, expected)) {
    return {
      ok: false,
      status: 401,
      message: `unauthorized: send "Authorization: Bearer <token>" with the token of ${METRICS_TOKEN_VARIABLE}`,
    };
  }
  return { ok: true };
}

export function isLoopbackPeer(address: string | undefined): boolean {
  return address !== undefined && classifyAddress(address)?.range === 'loopback';
}

/** Equal-length digests, so neither the comparison nor the length check tells how much of it matched. */
function sameSecret(presented: string, expected: string): boolean {
  const { createHash, timingSafeEqual } = process.getBuiltinModule('node:crypto');
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(expected));
}
