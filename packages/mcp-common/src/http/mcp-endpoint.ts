/**
 * The MCP endpoint (`/mcp`): its guards in the order they run, then the service that answers. The
 * Host/Origin check comes first (DNS rebinding), then the drain (503 while shutting down), then
 * authentication, and only then is the body read, so that nobody unauthenticated makes the server read
 * or parse anything. A request then goes, by the SDK's own classification (`isLegacyRequest`), to a legacy
 * session when sessions are on and it is a 2025-11-25 request, else to the per-request service. Where
 * nothing depends on the generation (stateless, both generations: the SDK's handler tells them apart), the
 * request is not classified here, which would build a web `Request` of it once more.
 */
import { toWebRequest } from '@modelcontextprotocol/node';
import { isLegacyRequest } from '@modelcontextprotocol/server';
import type { Logger } from '../logging/create-logger.js';
import type { TenantAccess } from '../tenants/create-tenant-access.js';
import { type AllowedHosts, checkHostAndOrigin } from './allowed-hosts.js';
import { authenticateRequest } from './authenticate-request.js';
import { REFUSED } from './json-responses.js';
import type { LegacySessionService } from './legacy-session-service.js';
import type { PerRequestService } from './per-request-service.js';
import { readJsonBody } from './read-json-body.js';
import type { Serve } from './route-table.js';
import type { ShutdownDrain } from './shutdown-drain.js';

export interface McpEndpointOptions {
  allowed: AllowedHosts;
  drain: ShutdownDrain;
  access: TenantAccess | undefined;
  maxBodyBytes: number;
  /** Legacy sessions, when on (`--sessions`). */
  sessions: LegacySessionService | undefined;
  perRequest: PerRequestService;
  log: Logger | undefined;
}

export function serveMcpEndpoint(options: McpEndpointOptions): Serve {
  const { allowed, drain, access, maxBodyBytes, sessions, perRequest, log } = options;
  return async (request, response) => {
    if (!checkHostAndOrigin(request, response, allowed)) return;
    if (!drain.admit(response)) return;
    const caller = await authenticateRequest(request, response, access, log);
    if (caller === REFUSED) return;
    if (request.method !== 'GET') drain.track(response);
    const body = request.method === 'POST' ? await readJsonBody(request, response, maxBodyBytes) : undefined;
    if (body === REFUSED) return;
    // 2025-11-25 (no per-request envelope) or 2026-07-28; anything but a POST belongs to a session.
    const legacy =
      request.method !== 'POST' ||
      ((sessions !== undefined || perRequest.needsGeneration) &&
        (await isLegacyRequest(await toWebRequest(request, body), body)));
    if (sessions && legacy) await sessions.serve(request, response, caller, body);
    else await perRequest.serve(request, response, caller, body, legacy);
  };
}
