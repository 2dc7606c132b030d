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
 */
import { API_KEY_VARIABLE, ConfigError } from '@polymodal/core';
import {
  createLogger,
  LOG_FORMAT_VARIABLE,
  type LogFormat,
  parseLogFormat,
  parseLogLevel,
  setDefaultLogFormat,
} from '../logging/create-logger.js';
import { METRICS_TOKEN_VARIABLE } from '../metrics/metrics-access.js';
import { createTenantAccess, type TenantAccess } from '../tenants/create-tenant-access.js';
import {
  isAuthenticationConfigured,
  OAUTH_ANY_TENANT_VARIABLE,
  OAUTH_AUDIENCE_VARIABLE,
  OAUTH_ISSUER_VARIABLE,
  OAUTH_TENANT_CLAIM_VARIABLE,
} from '../tenants/read-oauth-settings.js';
import { TENANTS_FILE_VARIABLE } from '../tenants/read-tenants-file.js';
import { describeStartupError } from './describe-startup-error.js';
import { parseServerArgs } from './parse-server-args.js';
import { readHttpSettings } from './read-http-settings.js';
import { runHttpServer } from './run-http-server.js';
import { runStdioServer } from './run-stdio-server.js';
import type { ServerFactory } from './server-instance.js';
import { unauthenticatedBindProblem } from './unauthenticated-bind-problem.js';

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
    `Usage: ${options.name} [--http [--port N] [--host H] [--allowed-host NAME]... [--sessions]] [--log-format json|text] [--version]\n\n` +
    'Without flags the server speaks MCP over stdio (for Claude Desktop, Claude Code, Cursor, VS Code).\n' +
    `--http serves Streamable HTTP at http://<host>:<port>/mcp (default 127.0.0.1:${options.defaultPort ?? 3000}),\n` +
    'statelessly; --sessions keeps legacy sessions (for server-to-client requests such as roots).\n' +
    '--allowed-host names a host clients may use in the Host header (repeatable; also POLYMODAL_ALLOWED_HOSTS).\n' +
    `--log-format json|text (also ${LOG_FORMAT_VARIABLE}; default json over HTTP, text over stdio).\n` +
    `GET /metrics (Prometheus) answers loopback peers; others need ${METRICS_TOKEN_VARIABLE} as a bearer token.\n` +
    `Off loopback, ${TENANTS_FILE_VARIABLE} (a JSON file of tenants and their token hashes) or ${OAUTH_ISSUER_VARIABLE}\n` +
    `with ${OAUTH_AUDIENCE_VARIABLE} (OAuth access tokens of that authorization server) is required.\n` +
    (options.help ? `\n${options.help}\n` : '');

  let args: ReturnType<typeof parseServerArgs>;
  let settings: ReturnType<typeof readHttpSettings>;
  let logFormat: LogFormat;
  try {
    args = parseServerArgs(options.argv ?? process.argv.slice(2), { port: options.defaultPort });
    settings = readHttpSettings(args, env);
    logFormat = chooseLogFormat(args.logFormat, env[LOG_FORMAT_VARIABLE], args.transport);
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
  if (args.transport === 'stdio') {
    await runStdioServer(options.factory, { name: options.name });
    return;
  }

  // Checked before anything is built or bound: the process must never listen unprotected, even briefly.
  const problem = unauthenticatedBindProblem(args.host, isAuthenticationConfigured(env));
  if (problem) {
    writeError(`${options.name}: ${problem}`);
    process.exitCode = 2;
    return;
  }

  const apiKey = env[API_KEY_VARIABLE]?.trim();
  const log = createLogger({
    name: options.name,
    level: parseLogLevel(env.POLYMODAL_LOG_LEVEL) ?? 'info',
    secrets: apiKey ? [apiKey] : [],
  });
  let access: TenantAccess | undefined;
  try {
    access = await createTenantAccess({ env, name: options.name, log });
    const handle = await runHttpServer(options.factory, {
      port: args.port,
      host: args.host,
      allowedHosts: settings.allowedHosts,
      sessions: settings.sessions,
      access,
      log,
      metricsToken: env[METRICS_TOKEN_VARIABLE],
    });
    const wildcard = ['0.0.0.0', '::', '[::]'].includes(args.host);
    if (wildcard) {
      // The Host check refuses the wildcard address itself, so print a name clients can actually use.
      const name = settings.allowedHosts[0] ?? 'localhost';
      writeError(
        `${options.name}: MCP Streamable HTTP endpoint at http://${name.includes(':') ? `[${name}]` : name}:${handle.port}/mcp ` +
          `(listening on every interface; Host names accepted: ${[...settings.allowedHosts, 'localhost', '127.0.0.1', '[::1]'].join(', ')}; add more with --allowed-host or POLYMODAL_ALLOWED_HOSTS)`,
      );
    } else {
      writeError(`${options.name}: MCP Streamable HTTP endpoint at ${handle.url}`);
    }
    writeError(`${options.name}: ${describeServing(access, settings, env)}`);

    const tenants = access;
    let reloading: Promise<void> = Promise.resolve();
    const reload = () => {
      // One reload at a time, in the order the signals came.
      reloading = reloading.then(async () => {
        const result = await tenants.reload();
        if (result.ok) {
          const changes = [
            result.added.length > 0 ? `added ${result.added.join(', ')}` : '',
            result.removed.length > 0 ? `removed ${result.removed.join(', ')}` : '',
            result.changed.length > 0 ? `new key for ${result.changed.join(', ')}` : '',
          ].filter((change) => change !== '');
          log.info(
            `tenants file reloaded: ${result.tenants} tenant(s)${changes.length > 0 ? `; ${changes.join('; ')}` : ''}`,
          );
        } else {
          log.warning(
            `tenants file not reloaded, keeping the ${result.tenants} tenant(s) loaded before: ${result.reason}`,
          );
        }
      });
    };
    if (access.mode === 'tenants') process.on('SIGHUP', reload);

    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      log.info(`${signal}: shutting down; calls waiting on jobs answer with their handle`);
      process.off('SIGHUP', reload);
      handle
        .close()
        .then(() => tenants.close())
        .then(
          () => process.exit(0),
          () => process.exit(1),
        );
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  } catch (error) {
    writeError(`${options.name}: ${describeStartupError(error, env)}`);
    await access?.close().catch(() => {});
    process.exit(ConfigError.isInstance(error) && AUTH_VARIABLES.has(error.variable ?? '') ? 2 : 1);
  }
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

/** Variables of authentication: a mistake in one is a usage error (exit 2), like a refused bind. */
const AUTH_VARIABLES = new Set([
  TENANTS_FILE_VARIABLE,
  OAUTH_ISSUER_VARIABLE,
  OAUTH_AUDIENCE_VARIABLE,
  OAUTH_TENANT_CLAIM_VARIABLE,
  OAUTH_ANY_TENANT_VARIABLE,
]);

function describeServing(
  access: TenantAccess,
  settings: ReturnType<typeof readHttpSettings>,
  env: NodeJS.ProcessEnv,
): string {
  const mode = settings.sessions
    ? `stateful sessions (at most ${settings.sessions.maxSessions}, closed after ${Math.round(settings.sessions.idleMs / 1000)} s idle)`
    : 'stateless (no sessions)';
  const methods: string[] = [];
  if (env[TENANTS_FILE_VARIABLE]?.trim()) {
    methods.push(
      `tenants from ${env[TENANTS_FILE_VARIABLE]?.trim()} (${access.tenantIds().length}; SIGHUP reloads it)`,
    );
  }
  if (access.protectedResource) {
    methods.push(
      `OAuth access tokens of ${access.protectedResource.document.authorization_servers[0]} for ${access.protectedResource.document.resource}`,
    );
  }
  const auth = access.mode === 'tenants' ? methods.join(' and ') : 'no authentication (loopback only)';
  return `${mode}; ${auth}`;
}
