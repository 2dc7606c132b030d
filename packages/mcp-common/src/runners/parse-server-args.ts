/**
 * Command line of every Polymodal MCP server bin: stdio by default, `--http` for Streamable HTTP
 * (stateless; `--sessions` for legacy stateful sessions), `--allowed-host` (repeatable) for the names
 * clients may use in the Host header, `--metrics-port`/`--metrics-host` for a listener of the metrics' own,
 * `--log-format json|text`, `--protocol all|2025-11-25`, `--version`.
 */
import { parseArgs } from 'node:util';
import { type LogFormat, parseLogFormat } from '../logging/create-logger.js';

export interface ServerArgs {
  transport: 'stdio' | 'http';
  port: number;
  host: string;
  /** Legacy stateful HTTP sessions. */
  sessions: boolean;
  /** Extra host names accepted in the Host/Origin headers. */
  allowedHosts: string[];
  /** `--metrics-port`: serve `/metrics` on a listener of its own; undefined: POLYMODAL_METRICS_PORT, or none. */
  metricsPort: number | undefined;
  /** `--metrics-host`; undefined: POLYMODAL_METRICS_HOST, or 127.0.0.1. */
  metricsHost: string | undefined;
  /** `--log-format`; undefined: POLYMODAL_LOG_FORMAT, or the transport's default. */
  logFormat: LogFormat | undefined;
  /** `--protocol` as given (`all` or `2025-11-25`); undefined: POLYMODAL_PROTOCOL, or both generations. */
  protocol: string | undefined;
  help: boolean;
  version: boolean;
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
      sessions: { type: 'boolean' },
      'allowed-host': { type: 'string', multiple: true },
      'metrics-port': { type: 'string' },
      'metrics-host': { type: 'string' },
      'log-format': { type: 'string' },
      protocol: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.http && values.stdio) throw new Error('choose one transport: --http or --stdio');
  const port = values.port === undefined ? (defaults.port ?? DEFAULT_HTTP_PORT) : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`--port must be an integer from 0 to 65535, got "${values.port}"`);
  }
  const metricsPort =
    values['metrics-port'] === undefined ? undefined : parsePort(values['metrics-port'], '--metrics-port');
  const metricsHost = values['metrics-host']?.trim() || undefined;
  const allowedHosts = (values['allowed-host'] ?? []).map((name) => name.trim());
  if (allowedHosts.some((name) => name === '' || /[\s/]/.test(name))) {
    throw new Error('--allowed-host takes a host name such as mcp.example.com (no scheme, path or spaces)');
  }
  const logFormat = parseLogFormat(values['log-format']);
  if (values['log-format'] !== undefined && logFormat === undefined) {
    throw new Error(`--log-format must be json or text, got "${values['log-format']}"`);
  }
  const host = values.host?.trim() || defaults.host || DEFAULT_HTTP_HOST;
  return {
    transport: values.http ? 'http' : 'stdio',
    port,
    host,
    sessions: values.sessions === true,
    allowedHosts,
    metricsPort,
    metricsHost,
    logFormat,
    protocol: values.protocol,
    help: values.help === true,
    version: values.version === true,
  };
}

/** A TCP port (0: any free one); throws naming the flag or variable otherwise. */
export function parsePort(value: string, name: string): number {
  const port = Number(value);
  if (value.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`${name} must be an integer from 0 to 65535, got "${value}"`);
  }
  return port;
}
