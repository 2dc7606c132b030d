/**
 * Legacy stateful sessions (`--sessions`), for 2025-11-25 clients that need the server to ask them things
 * (elicitation, roots) over a session. Each session has a server of its own from the factory, on its
 * tenant's context, and the SDK's session transport. A session is opened by an initialize, found again by
 * its `mcp-session-id`, and only by its own tenant: another tenant's id answers as unknown, so ids cannot
 * be probed. Sessions are capped (see `chooseSessionToClose`), closed when idle, and closed when their
 * tenant is removed or rekeyed (SIGHUP).
 */
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { isInitializeRequest } from '@modelcontextprotocol/server';
import type { Logger } from '../logging/create-logger.js';
import type { TenantAccess, TenantCaller } from '../tenants/create-tenant-access.js';
import { sendJsonRpcError } from './json-responses.js';
import type { BuiltServer, ServerInstances } from './server-instances.js';
import type { SessionLimits } from './session-limits.js';
import { createSessionTable, type LegacySession } from './session-table.js';

export interface LegacySessionServiceOptions {
  limits: SessionLimits;
  instances: ServerInstances;
  access: TenantAccess | undefined;
  /** Milliseconds, for idle times. */
  clock: () => number;
  log: Logger | undefined;
}

export interface LegacySessionService {
  serve(
    request: http.IncomingMessage,
    response: http.ServerResponse,
    caller: TenantCaller | undefined,
    body: unknown,
  ): Promise<void>;
  /** Number of open sessions. */
  size(): number;
  /** Stops closing sessions on their own (idle, tenant retired): from now on only shutdown closes them. */
  stopHousekeeping(): void;
  closeAll(): Promise<void>;
}

export function createLegacySessionService(options: LegacySessionServiceOptions): LegacySessionService {
  const { limits, instances, access, clock, log } = options;
  const table = createSessionTable(limits, clock, log);
  const unsubscribeRetired = access?.onRetired((tenantId) =>
    table.closeTenant(tenantId, 'its tenant was removed or rekeyed'),
  );
  const sweepTimer = setInterval(() => table.closeIdle(), Math.min(limits.idleMs, 60_000));
  sweepTimer.unref();

  /**
   * Opens a session for an initialize: makes room under the caps (503 with Retry-After when every session
   * that would give way is busy), builds the session's server, and records the session once the SDK's
   * transport has given it an id. An initialize that fails leaves nothing behind.
   */
  const openSession: LegacySessionService['serve'] = async (request, response, caller, body) => {
    const tenantId = caller?.tenantId;
    if (!table.makeRoomFor(tenantId)) {
      response.setHeader('retry-after', '5');
      sendJsonRpcError(response, 503, -32000, 'too many sessions, all busy: try again shortly');
      return;
    }
    table.startOpening(tenantId);
    let built: BuiltServer;
    try {
      built = await instances.build(caller);
    } catch (error) {
      table.endOpening(tenantId);
      throw error;
    }
    const { instance, dispose } = built;
    let opened = false;
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: false,
      onsessioninitialized: (id) => {
        opened = true;
        table.endOpening(tenantId);
        const session: LegacySession = { id, transport, tenantId, lastActive: clock(), inFlight: 0, dispose };
        table.add(session);
        table.countRequest(session, response);
        log?.debug('MCP session opened', { sessions: table.size() });
      },
      onsessionclosed: (id) => {
        const session = table.find(id);
        if (session) void table.close(session, 'the client ended it');
      },
    });
    instance.server.server.onclose = () => {
      table.forget(transport.sessionId, transport);
      void dispose();
    };
    try {
      await instance.server.connect(transport);
      await transport.handleRequest(request, response, body);
    } finally {
      if (!opened) {
        // The initialize failed: no session was made, so nothing may stay behind.
        table.endOpening(tenantId);
        void dispose();
      }
    }
  };

  return {
    async serve(request, response, caller, body) {
      table.closeIdle();
      const header = request.headers['mcp-session-id'];
      const sessionId = Array.isArray(header) ? header[0] : header;
      if (sessionId !== undefined) {
        const session = table.find(sessionId);
        // Another tenant's session answers as unknown, so session ids cannot be probed.
        if (!session || session.tenantId !== caller?.tenantId) {
          sendJsonRpcError(response, 404, -32001, 'session not found: start a new session with initialize');
          return;
        }
        table.touch(session);
        if (request.method !== 'GET') table.countRequest(session, response);
        await session.transport.handleRequest(request, response, body);
        return;
      }
      if (request.method !== 'POST' || !containsInitialize(body)) {
        sendJsonRpcError(
          response,
          400,
          -32000,
          'bad request: no valid mcp-session-id; send initialize first',
        );
        return;
      }
      await openSession(request, response, caller, body);
    },
    size: () => table.size(),
    stopHousekeeping() {
      clearInterval(sweepTimer);
      unsubscribeRetired?.();
    },
    closeAll: () => table.closeAll('shutdown'),
  };
}

function containsInitialize(body: unknown): boolean {
  return Array.isArray(body)
    ? body.some((message) => isInitializeRequest(message))
    : isInitializeRequest(body);
}
