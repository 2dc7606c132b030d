/**
 * The HTTP (and WebSocket upgrade) server shared by all services: listening, closing, and the wiring of
 * each request to dispatch-request.ts and each upgrade to handle-upgrade.ts.
 */
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocketServer } from 'ws';
import { dispatchRequest } from './dispatch-request.js';
import { handleUpgrade } from './handle-upgrade.js';
import { resetSocket } from './send-response.js';
import type { SandboxServerOptions, ServerDeps } from './server-deps.js';

export { CONTROL_PREFIX } from './dispatch-request.js';
export type { SandboxServerOptions } from './server-deps.js';

export interface SandboxServer {
  listen(options: { port: number; host: string }): Promise<string>;
  close(): Promise<void>;
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

function writeToStderr(error: unknown): void {
  process.stderr.write(`polymodal-sandbox: internal error: ${(error as Error)?.stack ?? String(error)}\n`);
}

function createHttpServer(deps: ServerDeps): Server {
  const server = createServer((request, response) => {
    dispatchRequest(deps, request, response).catch((error) => {
      deps.onError(error);
      resetSocket(request.socket);
    });
  });
  // An http server's upgrade socket is a net.Socket (typed as its Duplex base).
  server.on('upgrade', (request, socket, head) =>
    handleUpgrade(deps, { request, socket: socket as Socket, head }),
  );
  // Idle connections live 75 s (a common proxy default) instead of Node's 5: a client reuses one for the
  // announced time less a margin (undici: 2 s) by its own timers, so a client whose event loop stalled
  // past that margin (a busy machine; in tests the client often shares the sandbox's process) sent on a
  // connection closed meanwhile, and its POST failed with an ECONNRESET that may not be retried.
  server.keepAliveTimeout = 75_000;
  // A client error (malformed HTTP) must not crash the process.
  server.on('clientError', (_error, socket) => socket.destroy());
  return server;
}

export function createSandboxServer(options: SandboxServerOptions): SandboxServer {
  const closing = new AbortController();
  const deps: ServerDeps = {
    options,
    onError: options.onError ?? writeToStderr,
    closing: closing.signal,
    webSockets: new WebSocketServer({ noServer: true }),
  };
  let server: Server | undefined;

  return {
    listen({ port, host }) {
      server = createHttpServer(deps);
      const listening = server;
      return new Promise((resolve, reject) => {
        listening.once('error', reject);
        listening.listen(port, host, () => {
          listening.off('error', reject);
          const address = listening.address();
          const actualPort = typeof address === 'object' && address ? address.port : port;
          resolve(`http://${formatHost(host)}:${actualPort}`);
        });
      });
    },
    async close() {
      closing.abort();
      for (const client of deps.webSockets.clients) client.terminate();
      deps.webSockets.close();
      const running = server;
      if (!running) return;
      await new Promise<void>((resolve) => {
        running.close(() => resolve());
        running.closeAllConnections();
      });
    },
  };
}
