/**
 * Runs one MCP server over stdio, the way desktop hosts spawn it. stdout carries only the protocol; logs
 * and startup errors go to stderr. SIGINT, SIGTERM or the end of stdin lead to one cleanup and exit 0; a
 * startup failure (e.g. a missing POLYMODAL_API_KEY) prints its reason and exits 1, so the host's log shows
 * why the server is not there.
 *
 * Both protocol generations are answered (the SDK's `serveStdio`): the connection's first message chooses
 * one, 2026-07-28 (`server/discover` or a request carrying its protocol version) or 2025-11-25
 * (`initialize`), and one server serves the connection from then on. The server is built at start, before
 * that first message, so that a configuration problem is said at once; should the SDK need another (it
 * builds one for a `server/discover` that a client follows with `initialize` instead), the factory builds
 * it, and each one it lets go of is cleaned up. With `protocol: '2025-11-25'` the server is connected to a
 * plain stdio transport, which answers `initialize` only.
 */
import type { Readable, Writable } from 'node:stream';
import type { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { describeStartupError } from './describe-startup-error.js';
import type { ProtocolGenerations } from './protocol-generations.js';
import type { ServerFactory, ServerInstance } from './server-instance.js';

export interface RunStdioOptions {
  /** Prefix of stderr lines (the bin's name). */
  name?: string;
  /** Which protocol generations to answer (default both). */
  protocol?: ProtocolGenerations;
  stdin?: Readable;
  stdout?: Writable;
  /** Injectable for tests; defaults to process.exit. */
  exit?: (code: number) => void;
  /** Injectable for tests; defaults to process.stderr. */
  writeError?: (line: string) => void;
}

export async function runStdioServer(factory: ServerFactory, options: RunStdioOptions = {}): Promise<void> {
  const name = options.name ?? 'polymodal-mcp';
  const writeError = options.writeError ?? ((line: string) => process.stderr.write(`${line}\n`));
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const stdin = options.stdin ?? process.stdin;

  let prebuilt: ServerInstance | undefined;
  try {
    prebuilt = await factory();
  } catch (error) {
    writeError(`${name}: ${describeStartupError(error)}`);
    exit(1);
    return;
  }

  /** Every server built and not yet cleaned up, with its cleanup (run once). */
  const live = new Map<McpServer, () => Promise<void>>();
  const track = (instance: ServerInstance): McpServer => {
    let cleaned: Promise<void> | undefined;
    const cleanup = () => {
      cleaned ??= instance.cleanup().finally(() => live.delete(instance.server));
      return cleaned;
    };
    live.set(instance.server, cleanup);
    const previous = instance.server.server.onclose;
    instance.server.server.onclose = () => {
      previous?.();
      void cleanup();
    };
    return instance.server;
  };

  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  const onTransportError = (error: Error) => writeError(`${name}: transport error: ${error.message}`);
  let close: () => Promise<void>;
  if (options.protocol === '2025-11-25') {
    const server = track(prebuilt);
    prebuilt = undefined;
    transport.onerror = onTransportError;
    close = () => server.close();
    try {
      await server.connect(transport);
    } catch (error) {
      writeError(`${name}: ${describeStartupError(error)}`);
      await cleanupAll(live);
      exit(1);
      return;
    }
  } else {
    const handle = serveStdio(
      async () => {
        const instance = prebuilt ?? (await factory());
        prebuilt = undefined;
        return track(instance);
      },
      { legacy: 'serve', transport, onerror: onTransportError },
    );
    close = () => handle.close();
  }

  let stopping: Promise<void> | undefined;
  const onSignal = () => void stop(0);
  const stop = (code: number) => {
    stopping ??= (async () => {
      try {
        await close();
        // The server built at start, when no message came to need it.
        if (prebuilt) await prebuilt.cleanup();
        await cleanupAll(live);
      } catch (error) {
        writeError(
          `${name}: error while shutting down: ${error instanceof Error ? error.message : String(error)}`,
        );
      } finally {
        // Only now: removed at the signal itself, they would leave signal-exit alone on it (see below).
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        exit(code);
      }
    })();
    return stopping;
  };

  // `on`, not `once`, and kept until the process exits: a module that hooks signals to clean up on exit
  // (proper-lockfile's signal-exit, loaded with the first ledger write) kills the process again with the
  // signal when it finds itself the signal's only listener, which would skip the cleanup and exit code 0.
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  stdin.once('end', onSignal);
  stdin.once('close', onSignal);
}

async function cleanupAll(live: Map<McpServer, () => Promise<void>>): Promise<void> {
  await Promise.all([...live.values()].map((cleanup) => cleanup()));
}
