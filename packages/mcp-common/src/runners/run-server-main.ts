/**
 * The whole `main` of a server bin: parse the command line, run over stdio (default) or Streamable HTTP,
 * stop cleanly on SIGINT/SIGTERM. Help, errors and logs go to stderr; stdout stays the protocol channel
 * (only `--version`, which serves nothing, prints there).
 *
 * Over HTTP the process refuses, with exit code 2 and before listening, to serve a non-loopback address
 * without a tenants file or OAuth; with them, every request needs a tenant's bearer token or an access token
 * of the authorization server, and SIGHUP re-reads the tenants file.
 *
 * Logs: JSON lines by default over HTTP (for log collectors), text over stdio (for a person reading a
 * host's log); `--log-format` or POLYMODAL_LOG_FORMAT chooses. SIGTERM or SIGINT over HTTP drains the
 * server (see `runHttpServer`: calls waiting on long jobs answer with their handle) and exits 0.
 *
 * The HTTP side is loaded only when `--http` is chosen (`import()`), so that a host spawning the bin over
 * stdio does not pay at start for the HTTP server, its authentication (jose), tenants and metrics
 * (prom-client); the bins are code-split bundles, and this import is where they split.
 */

import { beforeFirstPlatformClient } from '../context/before-first-platform-client.js';
import {
  LOG_FORMAT_VARIABLE,
  type LogFormat,
  parseLogFormat,
  setDefaultLogFormat,
} from '../logging/create-logger.js';
import { METRICS_TOKEN_VARIABLE } from '../metrics/metrics-access.js';
import { OAUTH_AUDIENCE_VARIABLE, OAUTH_ISSUER_VARIABLE } from '../tenants/read-oauth-settings.js';
import { TENANTS_FILE_VARIABLE } from '../tenants/read-tenants-file.js';
import { readViewsPolicy, VIEWS_VARIABLE } from '../views/views-policy.js';
import { parseServerArgs } from './parse-server-args.js';
import {
  PROTOCOL_VARIABLE,
  type ProtocolGenerations,
  parseProtocolGenerations,
} from './protocol-generations.js';
import { readHttpSettings } from './read-http-settings.js';
import { runStdioServer } from './run-stdio-server.js';
import type { ServerFactory } from './server-instance.js';
import { raiseWasmTieringBudget } from './wasm-tiering-budget.js';

export interface RunServerMainOptions {
  /** Bin name, used in help and log lines. */
  name: string;
  factory: ServerFactory;
  /** The server's version (from its package.json), printed by `--version`. */
  version?: string;
  argv?: readonly string[];
  /** Default: process.env. */
  env?: NodeJS.ProcessEnv;
  defaultPort?: number;
  /** Extra help text (tools, environment variables). */
  help?: string;
}

export async function runServerMain(options: RunServerMainOptions): Promise<void> {
  const env = options.env ?? process.env;
  const writeError = (line: string) => process.stderr.write(`${line}\n`);
  const usage =
    `Usage: ${options.name} [--http [--port N] [--host H] [--allowed-host NAME]... [--sessions] [--metrics-port N [--metrics-host H]]] [--log-format json|text] [--protocol all|2025-11-25] [--version]\n\n` +
    'Without flags the server speaks MCP over stdio (for Claude Desktop, Claude Code, Cursor, VS Code).\n' +
    `--http serves Streamable HTTP at http://<host>:<port>/mcp (default 127.0.0.1:${options.defaultPort ?? 3000}),\n` +
    'statelessly; --sessions keeps legacy sessions (for server-to-client requests such as roots).\n' +
    '--allowed-host names a host clients may use in the Host header (repeatable; also POLYMODAL_ALLOWED_HOSTS).\n' +
    `--log-format json|text (also ${LOG_FORMAT_VARIABLE}; default json over HTTP, text over stdio).\n` +
    `--metrics-port N serves GET /metrics (Prometheus) on a port of its own, on --metrics-host (default 127.0.0.1;\n` +
    `also POLYMODAL_METRICS_PORT, POLYMODAL_METRICS_HOST): loopback peers read it freely, others need ${METRICS_TOKEN_VARIABLE}\n` +
    `as a bearer token. On the MCP port, /metrics always needs ${METRICS_TOKEN_VARIABLE}.\n` +
    `Off loopback, ${TENANTS_FILE_VARIABLE} (a JSON file of tenants and their token hashes) or ${OAUTH_ISSUER_VARIABLE}\n` +
    `with ${OAUTH_AUDIENCE_VARIABLE} (OAuth access tokens of that authorization server) is required.\n` +
    `--protocol all|2025-11-25 (also ${PROTOCOL_VARIABLE}): both MCP protocol generations (2026-07-28 and 2025-11-25,\n` +
    'the default), or 2025-11-25 only, for a host with a known bug on the newer one.\n' +
    `${VIEWS_VARIABLE}=auto|on|off: MCP Apps views go to clients that declare the extension (auto, the default);\n` +
    "on also offers them where a client's capabilities are unknown (stateless HTTP); off offers none.\n" +
    (options.help ? `\n${options.help}\n` : '');

  let args: ReturnType<typeof parseServerArgs>;
  let settings: ReturnType<typeof readHttpSettings>;
  let logFormat: LogFormat;
  let protocol: ProtocolGenerations;
  try {
    args = parseServerArgs(options.argv ?? process.argv.slice(2), { port: options.defaultPort });
    protocol =
      args.protocol !== undefined
        ? parseProtocolGenerations(args.protocol, '--protocol')
        : parseProtocolGenerations(env[PROTOCOL_VARIABLE], PROTOCOL_VARIABLE);
    settings = readHttpSettings(args, env);
    logFormat = chooseLogFormat(args.logFormat, env[LOG_FORMAT_VARIABLE], args.transport);
    // Said now, not by the first request's server (each server reads it).
    readViewsPolicy(env);
  } catch (error) {
    writeError(`${options.name}: ${error instanceof Error ? error.message : String(error)}\n\n${usage}`);
    process.exitCode = 2;
    return;
  }
  if (args.version) {
    process.stdout.write(`${options.version ?? 'unknown'}\n`);
    return;
  }
  if (args.help) {
    writeError(usage);
    return;
  }
  // Before any logger is made: every one (the tenants' contexts' too) writes in this format.
  setDefaultLogFormat(logFormat);
  // Before the first platform request creates the HTTP parser (see the module). Armed for the first tool
  // call rather than done now: node:v8 would add about 2 ms to every start.
  beforeFirstPlatformClient(() => raiseWasmTieringBudget());
  if (args.transport === 'stdio') {
    await runStdioServer(options.factory, { name: options.name, protocol });
    return;
  }
  const { serveHttp } = await import('./serve-http.js');
  await serveHttp({ name: options.name, factory: options.factory, env, args, settings, protocol });
}

/** `--log-format`, then POLYMODAL_LOG_FORMAT, then the transport's default. */
function chooseLogFormat(
  flag: LogFormat | undefined,
  variable: string | undefined,
  transport: 'stdio' | 'http',
): LogFormat {
  if (flag) return flag;
  if (variable !== undefined && variable.trim() !== '') {
    const format = parseLogFormat(variable);
    if (!format) throw new Error(`${LOG_FORMAT_VARIABLE} must be json or text, got "${variable.trim()}"`);
    return format;
  }
  return transport === 'http' ? 'json' : 'text';
}
