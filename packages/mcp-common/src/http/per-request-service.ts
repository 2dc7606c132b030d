/**
 * Serving without sessions, through the SDK's own per-request handler (`createMcpHandler` for both
 * protocol generations, or `legacyStatelessFallback` when only 2025-11-25 is served): a fresh server from
 * the factory for each request, built on the caller's context and disposed of when the SDK closes it at the
 * end of the exchange, so clients that never send DELETE (the SDK client, the Inspector, the conformance
 * suite) leave nothing behind. With legacy sessions beside it, it serves the 2026-07-28 requests only.
 *
 * The request arrives with its body already read and parsed (`toNodeHandler` takes it as is), and with
 * its caller, which reaches the factory as the SDK's `AuthInfo` (see `caller-auth-info.ts`).
 */
import type http from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  legacyStatelessFallback,
  type McpRequestContext,
} from '@modelcontextprotocol/server';
import type { Logger } from '../logging/create-logger.js';
import type { ProtocolGenerations } from '../runners/protocol-generations.js';
import type { TenantAccess, TenantCaller } from '../tenants/create-tenant-access.js';
import { authInfoOf, callerOf } from './caller-auth-info.js';
import { sendJsonRpcError } from './json-responses.js';
import type { ServerInstances } from './server-instances.js';
import { sendUnsupportedProtocol } from './unsupported-protocol.js';

export interface PerRequestServiceOptions {
  instances: ServerInstances;
  access: TenantAccess | undefined;
  protocol: ProtocolGenerations;
  /** Whether legacy sessions serve the 2025-11-25 requests (this then refuses them). */
  sessions: boolean;
  maxBodyBytes: number;
  log: Logger | undefined;
}

export interface PerRequestService {
  /**
   * Whether `serve` needs to be told a request's generation (when it serves 2025-11-25 only); otherwise the
   * SDK's handler tells them apart itself.
   */
  readonly needsGeneration: boolean;
  /** Serves one request; `legacy` is the SDK's classification (2025-11-25, without an envelope). */
  serve(
    request: http.IncomingMessage,
    response: http.ServerResponse,
    caller: TenantCaller | undefined,
    body: unknown,
    legacy: boolean,
  ): Promise<void>;
  close(): Promise<void>;
}

export function createPerRequestService(options: PerRequestServiceOptions): PerRequestService {
  const { instances, access, protocol, sessions, maxBodyBytes, log } = options;
  const factory = async ({ authInfo }: McpRequestContext) => {
    const caller = callerOf(authInfo);
    // Fail closed: a request that passed authentication always carries its caller this far.
    if (access && !caller) throw new Error('the request reached the MCP handler without its tenant');
    const { instance, dispose } = await instances.build(caller);
    const previous = instance.server.server.onclose;
    instance.server.server.onclose = () => {
      previous?.();
      void dispose();
    };
    return instance.server;
  };
  const onerror = (error: Error) => log?.debug('MCP request refused', { error: error.message });
  // Both generations; with legacy sessions beside it, 2026-07-28 only (it refuses the older one).
  const bothGenerations =
    protocol === '2025-11-25'
      ? undefined
      : createMcpHandler(factory, {
          legacy: sessions ? 'reject' : 'stateless',
          maxRequestBodySize: maxBodyBytes,
          onerror,
        });
  const olderOnly =
    protocol === '2025-11-25' && !sessions
      ? legacyStatelessFallback(factory, onerror, { maxRequestBodySize: maxBodyBytes })
      : undefined;

  return {
    needsGeneration: olderOnly !== undefined || bothGenerations === undefined,
    async serve(request, response, caller, body, legacy) {
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
      const handler = legacy && olderOnly ? { fetch: olderOnly } : bothGenerations;
      if (!handler) {
        sendUnsupportedProtocol(response, body);
        return;
      }
      const authInfo = authInfoOf(caller);
      await toNodeHandler({
        fetch: (webRequest, init) => handler.fetch(webRequest, { ...init, authInfo }),
      })(request, response, body);
    },
    close: async () => {
      await bothGenerations?.close();
    },
  };
}
