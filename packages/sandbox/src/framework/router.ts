/**
 * A small router over `node:http`: services register `METHOD /path/:param` routes (and WebSocket
 * upgrades); matching tells apart an unknown path (404) from a known path with another method (405).
 */
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import type { KeyScheme, Principal } from './authenticator.js';
import type { RequestContext } from './request-context.js';
import type { SandboxResponse } from './sandbox-response.js';

export type RouteHandler = (context: RequestContext) => Promise<SandboxResponse> | SandboxResponse;

export interface UpgradeContext {
  request: IncomingMessage;
  url: URL;
  params: Record<string, string>;
  /** Authenticates the upgrade request or throws a 401/503 `HttpError` (answered before the upgrade). */
  authenticate(schemes: readonly KeyScheme[]): Principal;
}
/**
 * Checks the upgrade request (throwing an `HttpError` refuses it with that status) and returns what to
 * do with the open socket.
 */
export type UpgradeHandler = (context: UpgradeContext) => (socket: WebSocket) => void;

export type RouteMatch =
  | { kind: 'route'; handler: RouteHandler; params: Record<string, string>; routeKey: string }
  | { kind: 'method-not-allowed'; allow: string[]; routeKey: string }
  | { kind: 'not-found'; routeKey: string };

export interface Router {
  /** Registers a handler; `pattern` is a path whose `:name` segments become params. */
  route(method: string, pattern: string, handler: RouteHandler): void;
  /** Registers a WebSocket endpoint. */
  upgrade(pattern: string, handler: UpgradeHandler): void;
  match(method: string, pathname: string): RouteMatch;
  matchUpgrade(pathname: string): { handler: UpgradeHandler; params: Record<string, string> } | undefined;
}

interface CompiledPattern {
  pattern: string;
  segments: string[];
}

function compile(pattern: string): CompiledPattern {
  if (!pattern.startsWith('/')) throw new Error(`route pattern must start with "/": ${pattern}`);
  return { pattern, segments: pattern.split('/').slice(1) };
}

function matchPattern(compiled: CompiledPattern, parts: string[]): Record<string, string> | undefined {
  if (compiled.segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let index = 0; index < parts.length; index++) {
    const segment = compiled.segments[index]!;
    const part = parts[index]!;
    if (segment.startsWith(':')) {
      if (part === '') return undefined;
      try {
        params[segment.slice(1)] = decodeURIComponent(part);
      } catch {
        return undefined;
      }
    } else if (segment !== part) {
      return undefined;
    }
  }
  return params;
}

export function createRouter(): Router {
  const routes: { method: string; compiled: CompiledPattern; handler: RouteHandler }[] = [];
  const upgrades: { compiled: CompiledPattern; handler: UpgradeHandler }[] = [];

  return {
    route(method, pattern, handler) {
      const upper = method.toUpperCase();
      if (routes.some((entry) => entry.method === upper && entry.compiled.pattern === pattern)) {
        throw new Error(`route registered twice: ${upper} ${pattern}`);
      }
      routes.push({ method: upper, compiled: compile(pattern), handler });
    },
    upgrade(pattern, handler) {
      upgrades.push({ compiled: compile(pattern), handler });
    },
    match(method, pathname) {
      const upper = method.toUpperCase();
      const parts = pathname.split('/').slice(1);
      const allow = new Set<string>();
      let pattern: string | undefined;
      for (const entry of routes) {
        const params = matchPattern(entry.compiled, parts);
        if (!params) continue;
        pattern ??= entry.compiled.pattern;
        if (entry.method === upper) {
          return {
            kind: 'route',
            handler: entry.handler,
            params,
            routeKey: `${upper} ${entry.compiled.pattern}`,
          };
        }
        allow.add(entry.method);
      }
      if (pattern !== undefined) {
        return { kind: 'method-not-allowed', allow: [...allow].sort(), routeKey: `${upper} ${pattern}` };
      }
      return { kind: 'not-found', routeKey: `${upper} (unknown route)` };
    },
    matchUpgrade(pathname) {
      const parts = pathname.split('/').slice(1);
      for (const entry of upgrades) {
        const params = matchPattern(entry.compiled, parts);
        if (params) return { handler: entry.handler, params };
      }
      return undefined;
    },
  };
}
