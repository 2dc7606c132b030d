/**
 * The whole `main` of a server bin: parse `--http/--port/--host`, run over stdio (default) or Streamable
 * HTTP, stop cleanly on SIGINT/SIGTERM. Help and errors go to stderr; stdout stays the protocol channel.
 */
import { describeStartupError } from './describe-startup-error.js';
import { parseServerArgs } from './parse-server-args.js';
import { runHttpServer } from './run-http-server.js';
import { runStdioServer } from './run-stdio-server.js';
import type { ServerFactory } from './server-instance.js';

export interface RunServerMainOptions {
  /** Bin name, used in help and log lines. */
  name: string;
  factory: ServerFactory;
  argv?: readonly string[];
  defaultPort?: number;
  /** Extra help text (tools, environment variables). */
  help?: string;
}

export async function runServerMain(options: RunServerMainOptions): Promise<void> {
  const writeError = (line: string) => process.stderr.write(`${line}\n`);
  const usage =
    `Usage: ${options.name} [--http [--port N] [--host H]]\n\n` +
    'Without flags the server speaks MCP over stdio (for Claude Desktop, Claude Code, Cursor, VS Code).\n' +
    `--http serves Streamable HTTP at http://<host>:<port>/mcp (default 127.0.0.1:${options.defaultPort ?? 3000}).\n` +
    (options.help ? `\n${options.help}\n` : '');

  let args: ReturnType<typeof parseServerArgs>;
  try {
    args = parseServerArgs(options.argv ?? process.argv.slice(2), { port: options.defaultPort });
  } catch (error) {
    writeError(`${options.name}: ${error instanceof Error ? error.message : String(error)}\n\n${usage}`);
    process.exitCode = 2;
    return;
  }
  if (args.help) {
    writeError(usage);
    return;
  }
  if (args.transport === 'stdio') {
    await runStdioServer(options.factory, { name: options.name });
    return;
  }

  try {
    const handle = await runHttpServer(options.factory, { port: args.port, host: args.host });
    writeError(`${options.name}: MCP Streamable HTTP endpoint at ${handle.url}`);
    const stop = () => {
      handle.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  } catch (error) {
    writeError(`${options.name}: ${describeStartupError(error)}`);
    process.exit(1);
  }
}
