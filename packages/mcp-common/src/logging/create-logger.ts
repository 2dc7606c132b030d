/**
 * Server logs. stdout of a stdio MCP server is the protocol channel, so every line goes to stderr; when a
 * 2025-11-25 client is connected the same record is also sent as an MCP `notifications/message` so hosts can
 * show it. The 2026-07-28 protocol deprecates those messages and sends them only for a request that asks for
 * a log level: a record written outside such a request goes to stderr only. Every message is redacted
 * before it leaves the process.
 *
 * Two formats (POLYMODAL_LOG_FORMAT or `--log-format`): `text`, `[name] level: message {data}` for a person
 * reading a terminal (the default over stdio), and `json`, one object per line with `time`, `level`, `name`,
 * `msg`, the data's fields and, while an HTTP request is handled, its `requestId` (the default over HTTP,
 * for log collectors). The bin's main chooses the process's default once (`setDefaultLogFormat`), so every
 * logger made later (one per tenant context) writes alike.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { redactSecrets } from '@polymodal/core/config';
import { currentRequestScope } from '../scope/request-scope.js';

export type LogLevel = 'debug' | 'info' | 'warning' | 'error';
export type LogFormat = 'text' | 'json';

export const LOG_FORMAT_VARIABLE = 'POLYMODAL_LOG_FORMAT';

let defaultFormat: LogFormat = 'text';

/** The format of loggers created without one (the bin's main sets it from the transport and settings). */
export function setDefaultLogFormat(format: LogFormat): void {
  defaultFormat = format;
}

export function parseLogFormat(value: string | undefined): LogFormat | undefined {
  const normalized = value?.trim().toLowerCase();
  return normalized === 'json' || normalized === 'text' ? normalized : undefined;
}

const LEVEL_ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warning: 2, error: 3 };

export interface Logger {
  debug(message: string, data?: Record<string, unknown>): void;
  info(message: string, data?: Record<string, unknown>): void;
  warning(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
  /** Also forward records to this server's client as MCP log notifications; returns a detach function. */
  attach(server: McpServer): () => void;
  /** Adds a value that must never appear in a log line (e.g. a key read later). */
  addSecret(secret: string): void;
}

export interface LoggerOptions {
  /** Name shown in front of each stderr line and used as the MCP logger name. */
  name?: string;
  secrets?: readonly string[];
  /** Lowest level written to stderr (default `info`, or `POLYMODAL_LOG_LEVEL`). */
  level?: LogLevel;
  /** Where stderr lines go; injectable for tests. Must never be stdout. */
  write?: (line: string) => void;
  /** Line format; default the process's (`setDefaultLogFormat`, `text` unless the main chose otherwise). */
  format?: LogFormat;
}

export function parseLogLevel(value: string | undefined): LogLevel | undefined {
  const normalized = value?.trim().toLowerCase();
  if (normalized === 'warn') return 'warning';
  return normalized && normalized in LEVEL_ORDER ? (normalized as LogLevel) : undefined;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const name = options.name ?? 'polymodal';
  const secrets = [...(options.secrets ?? [])].filter((secret) => secret.length > 0);
  const threshold = LEVEL_ORDER[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const servers = new Set<McpServer>();
  const format = options.format;

  const log = (level: LogLevel, message: string, data?: Record<string, unknown>) => {
    const redacted = redactSecrets(message, secrets);
    const details = data === undefined ? undefined : redactSecrets(safeStringify(data), secrets);
    if (LEVEL_ORDER[level] >= threshold) {
      if ((format ?? defaultFormat) === 'json') {
        write(jsonLine(level, name, redacted, details, secrets));
      } else {
        write(`[${name}] ${level}: ${redacted}${details ? ` ${details}` : ''}`);
      }
    }
    for (const server of servers) {
      if (!server.isConnected() || isModernConnection(server)) continue;
      // The SDK drops records below the level the client set with logging/setLevel.
      server
        .sendLoggingMessage({
          level,
          logger: name,
          data: details === undefined ? redacted : { message: redacted, details: JSON.parse(details) },
        })
        .catch(() => {
          // A client that went away must not turn logging into a crash.
        });
    }
  };

  return {
    debug: (message, data) => log('debug', message, data),
    info: (message, data) => log('info', message, data),
    warning: (message, data) => log('warning', message, data),
    error: (message, data) => log('error', message, data),
    attach(server) {
      servers.add(server);
      return () => servers.delete(server);
    },
    addSecret(secret) {
      if (secret.length > 0) secrets.push(secret);
    },
  };
}

/**
 * One JSON object: the record's own keys first; a data field of the same name cannot overwrite them. The
 * whole line is redacted once more, since a secret could be split across the data's escaping.
 */
function jsonLine(
  level: LogLevel,
  name: string,
  message: string,
  details: string | undefined,
  secrets: readonly string[],
): string {
  let fields: Record<string, unknown> = {};
  if (details !== undefined) {
    try {
      const parsed: unknown = JSON.parse(details);
      fields =
        typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
          ? (parsed as Record<string, unknown>)
          : { data: parsed };
    } catch {
      fields = { data: details };
    }
  }
  const requestId = currentRequestScope()?.requestId;
  const record: Record<string, unknown> = { time: new Date().toISOString(), level, name, msg: message };
  for (const [key, value] of Object.entries(fields)) if (!(key in record)) record[key] = value;
  if (requestId !== undefined) record.requestId = requestId;
  return redactSecrets(JSON.stringify(record), secrets);
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, item: unknown) =>
      item instanceof Error ? { name: item.name, message: item.message } : item,
    );
  } catch {
    return '"[unserializable]"';
  }
}

/** Whether the connection speaks 2026-07-28 (or a later generation), where logging is per request. */
function isModernConnection(server: McpServer): boolean {
  const version = server.server.getNegotiatedProtocolVersion();
  return version !== undefined && version >= '2026-07-28';
}
