/**
 * DNS rebinding: a web page whose name an attacker points at this machine must not reach the server through
 * the browser. So a request to the MCP endpoint must name this server in its Host header, and in its
 * Origin when a browser sends one: a loopback name, the address listened on (not a wildcard, which no client
 * names), or a name given with `--allowed-host` / POLYMODAL_ALLOWED_HOSTS.
 *
 * Names are kept as `new URL()` spells a Host header's hostname (lower case, IPv6 in brackets, no port), so
 * `::1`, `[::1]` and `Example.COM` given on the command line all match. The Host check is the SDK's
 * `validateHostHeader`, which compares exactly that spelling; the loopback names are its
 * `localhostAllowedHostnames()`. Not the SDK's guards (`hostHeaderValidation`, `originValidation` from
 * `@modelcontextprotocol/node`, `hostHeaderValidationResponse`): they answer with messages of their own
 * ("Invalid Host: …") where ours say what was refused and why. The Origin check stays ours: the SDK's
 * `validateOriginHeader` lets an empty Origin through and compares a non-web origin's host (a browser
 * extension's) case-sensitively, where a present Origin must name an allowed host, whatever its case.
 */
import type http from 'node:http';
import { isIPv6 } from 'node:net';
import { localhostAllowedHostnames, validateHostHeader } from '@modelcontextprotocol/server';
import { sendJsonRpcError } from './json-responses.js';

export interface AllowedHosts {
  /** Every accepted name, normalised; loopback names always among them. */
  readonly names: readonly string[];
  /** Whether a Host header (name and optional port) names this server. */
  acceptsHost(header: string | undefined): boolean;
  /** Whether an Origin header (a page's scheme, name and port) is one of this server's names. */
  acceptsOrigin(origin: string): boolean;
}

const WILDCARD_ADDRESSES = ['0.0.0.0', '::', '[::]'];

/** The names a server listening on `listenHost` answers to, plus `extra` (`--allowed-host`). */
export function allowedHosts(listenHost: string, extra: readonly string[] | undefined): AllowedHosts {
  const names = new Set(localhostAllowedHostnames());
  const given = WILDCARD_ADDRESSES.includes(listenHost) ? [] : [listenHost];
  for (const name of [...given, ...(extra ?? [])]) {
    const normalized = normalizeHostName(name);
    if (normalized) names.add(normalized);
  }
  const list = [...names];
  return {
    names: list,
    acceptsHost: (header) => validateHostHeader(header, list).ok,
    acceptsOrigin(origin) {
      try {
        return names.has(new URL(origin).hostname.toLowerCase());
      } catch {
        return false;
      }
    },
  };
}

/**
 * Refuses (403) a request whose Host, or Origin when present, names another server. Returns whether the
 * request may go on; when not, it has been answered.
 */
export function checkHostAndOrigin(
  request: http.IncomingMessage,
  response: http.ServerResponse,
  allowed: AllowedHosts,
): boolean {
  if (!allowed.acceptsHost(request.headers.host)) {
    sendJsonRpcError(response, 403, -32000, 'forbidden: Host header is not an allowed host');
    return false;
  }
  const origin = request.headers.origin;
  if (origin !== undefined && !allowed.acceptsOrigin(origin)) {
    sendJsonRpcError(response, 403, -32000, 'forbidden: Origin is not an allowed host');
    return false;
  }
  return true;
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
