/**
 * Runs one MCP server over stdio, the way desktop hosts spawn it. stdout carries only the protocol; logs
 * and startup errors go to stderr. SIGINT, SIGTERM, the end of stdin or the transport closing all lead to
 * one cleanup and exit 0; a startup failure (e.g. a missing POLYMODAL_API_KEY) prints its reason and
 * exits 1, so the host's log shows why the server is not there.
 */
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { describeStartupError } from './describe-startup-error.js';
import type { ServerFactory, ServerInstance } from './server-instance.js';

export interface RunStdioOptions {
  /** Prefix of stderr lines (the bin's name). */
  name?: string;
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

  let instance: ServerInstance;
  try {
    instance = await factory();
  } catch (error) {
    writeError(`${name}: ${describeStartupError(error)}`);
    exit(1);
    return;
  }

  let stopping: Promise<void> | undefined;
  const onSignal = () => void stop(0);
  const stop = (code: number) => {
    stopping ??= (async () => {
      try {
        await instance.cleanup();
        await instance.server.close();
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

  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  transport.onerror = (error) => writeError(`${name}: transport error: ${error.message}`);
  // `on`, not `once`, and kept until the process exits: a module that hooks signals to clean up on exit
  // (proper-lockfile's signal-exit, loaded with the first ledger write) kills the process again with the
  // signal when it finds itself the signal's only listener, which would skip the cleanup and exit code 0.
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  stdin.once('end', onSignal);
  stdin.once('close', onSignal);
  try {
    await instance.server.connect(transport);
  } catch (error) {
    writeError(`${name}: ${describeStartupError(error)}`);
    await stop(1);
    return;
  }
  const previousOnClose = instance.server.server.onclose;
  instance.server.server.onclose = () => {
    previousOnClose?.();
    void stop(0);
  };
}
