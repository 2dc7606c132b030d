/**
 * Runs MCP servers over Streamable HTTP for hosts that connect to a URL. Stateful sessions (roots and
 * progress need them), one McpServer per session from the factory, SSE responses (JSON responses would
 * drop progress notifications), and DNS-rebinding protection always on: the Host header (and Origin, when
 * sent) must name an allowed host, so a web page cannot reach a loopback server through a rebound name.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../logging/create-logger.js';
import type { ServerFactory, ServerInstance } from './server-instance.js';

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
}

export interface HttpServerHandle {
  /** e.g. http://127.0.0.1:3000/mcp */
  url: string;
  port: number;
  /** Number of open MCP sessions. */
  sessions(): number;
  close(): Promise<void>;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

interface Session {
  transport: StreamableHTTPServerTransport;
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
  const sessions = new Map<string, Session>();

  if (options.probe !== false) {
    const probe = await factory();
    await probe.cleanup();
  }

  const disposeSession = async (id: string) => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    await session.dispose();
  };

  const handle = async (request: http.IncomingMessage, response: http.ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
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

    const sessionHeader = request.headers['mcp-session-id'];
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
    const body = request.method === 'POST' ? await readJsonBody(request, response, maxBodyBytes) : undefined;
    if (body === INVALID) return;

    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (!session) {
        sendJsonRpcError(response, 404, -32001, 'session not found: start a new session with initialize');
        return;
      }
      await session.transport.handleRequest(request, response, body);
      return;
    }
    if (request.method !== 'POST' || !containsInitialize(body)) {
      sendJsonRpcError(response, 400, -32000, 'bad request: no valid mcp-session-id; send initialize first');
      return;
    }

    const instance = await factory();
    const dispose = disposeOnce(instance, options.log);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: false,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, dispose });
        options.log?.debug('MCP session opened', { sessions: sessions.size });
      },
      onsessionclosed: (id) => disposeSession(id),
    });
    instance.server.server.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      void dispose();
    };
    await instance.server.connect(transport);
    await transport.handleRequest(request, response, body);
  };

  const server = http.createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      options.log?.error('HTTP request failed', {
        error: error instanceof Error ? error.message : String(error),
      });
      if (!response.headersSent) sendJsonRpcError(response, 500, -32603, 'internal error');
      else response.end();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}${endpoint}`,
    port,
    sessions: () => sessions.size,
    close() {
      closing ??= (async () => {
        const open = [...sessions.values()];
        sessions.clear();
        await Promise.allSettled(
          open.map(async (session) => {
            await session.transport.close();
            await session.dispose();
          }),
        );
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}

function disposeOnce(instance: ServerInstance, log: Logger | undefined): () => Promise<void> {
  let disposed: Promise<void> | undefined;
  return () => {
    disposed ??= instance.cleanup().catch((error: unknown) => {
      log?.warning('session cleanup failed', {
        error: error instanceof Error ? error.message : String(error),
      });
    });
    return disposed;
  };
}

function allowedHostNames(host: string, extra: readonly string[] | undefined): Set<string> {
  const names = new Set(LOOPBACK_NAMES);
  const wildcard = host === '0.0.0.0' || host === '::' || host === '[::]';
  if (!wildcard) names.add(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host.toLowerCase());
  for (const name of extra ?? []) names.add(name.trim().toLowerCase());
  return names;
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

function sendJsonRpcError(
  response: http.ServerResponse,
  status: number,
  code: number,
  message: string,
): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
