/**
 * Command line of every Polymodal MCP server bin: stdio by default, `--http` for Streamable HTTP.
 */
import { parseArgs } from 'node:util';

export interface ServerArgs {
  transport: 'stdio' | 'http';
  port: number;
  host: string;
  help: boolean;
}

export const DEFAULT_HTTP_HOST = '127.0.0.1';
export const DEFAULT_HTTP_PORT = 3000;

/** Throws an Error with a readable message on unknown flags or a bad port. */
export function parseServerArgs(
  argv: readonly string[],
  defaults: { port?: number; host?: string } = {},
): ServerArgs {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      http: { type: 'boolean' },
      stdio: { type: 'boolean' },
      port: { type: 'string' },
      host: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.http && values.stdio) throw new Error('choose one transport: --http or --stdio');
  const port = values.port === undefined ? (defaults.port ?? DEFAULT_HTTP_PORT) : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`--port must be an integer from 0 to 65535, got "${values.port}"`);
  }
  const host = values.host?.trim() || defaults.host || DEFAULT_HTTP_HOST;
  return { transport: values.http ? 'http' : 'stdio', port, host, help: values.help === true };
}
