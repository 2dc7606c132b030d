/**
 * The Streamable HTTP half of a server bin's `main` (see `runServerMain`), in its own module so that a bin
 * started over stdio never loads it: it refuses, with exit code 2 and before listening, to serve a
 * non-loopback address without a tenants file or OAuth (and metrics off loopback without their token);
 * builds the tenants' access, serves, logs where (one record, in the process's log format like every
 * other stderr line), re-reads the tenants file on SIGHUP and drains on SIGTERM/SIGINT.
 */
import { API_KEY_VARIABLE } from '@polymodal/core/config';
import { ConfigError } from '@polymodal/core/errors';
import { createLogger, type Logger, parseLogLevel } from '../logging/create-logger.js';
import { processMetrics } from '../metrics/create-metrics.js';
import { METRICS_TOKEN_VARIABLE } from '../metrics/metrics-access.js';
import { unauthenticatedBindProblem } from '../network/unauthenticated-bind-problem.js';
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
import type { ServerArgs } from './parse-server-args.js';
import type { ProtocolGenerations } from './protocol-generations.js';
import type { HttpSettings } from './read-http-settings.js';
import { type HttpServerHandle, runHttpServer } from './run-http-server.js';
import type { ServerFactory } from './server-instance.js';

export interface ServeHttpOptions {
  /** Bin name, used in log lines. */
  name: string;
  factory: ServerFactory;
  env: NodeJS.ProcessEnv;
  args: ServerArgs;
  settings: HttpSettings;
  /** Which protocol generations to answer. */
  protocol: ProtocolGenerations;
}

export async function serveHttp({
  name,
  factory,
  env,
  args,
  settings,
  protocol,
}: ServeHttpOptions): Promise<void> {
  const apiKey = env[API_KEY_VARIABLE]?.trim();
  const secrets = apiKey ? [apiKey] : [];
  const log = createLogger({
    name,
    level: parseLogLevel(env.POLYMODAL_LOG_LEVEL) ?? 'info',
    secrets,
  });
  // Where the server is and how it serves, and why it could not start: written whatever the log level
  // (a supervisor waits for the address), as records of the process's log format like every other line.
  const announce = createLogger({ name, level: 'info', secrets });
  // Checked before anything is built or bound: the process must never listen unprotected, even briefly.
  const problem = unauthenticatedBindProblem(args.host, isAuthenticationConfigured(env));
  if (problem) {
    announce.error(problem);
    process.exitCode = 2;
    return;
  }
  // Created first, so that the tenants' contexts and the probe report into what `/metrics` serves.
  processMetrics();

  let access: TenantAccess | undefined;
  try {
    access = await createTenantAccess({ env, name, log });
    const handle = await runHttpServer(factory, {
      port: args.port,
      host: args.host,
      allowedHosts: settings.allowedHosts,
      sessions: settings.sessions,
      protocol,
      access,
      log,
      metricsToken: env[METRICS_TOKEN_VARIABLE],
      ...(settings.metrics ? { metricsListener: settings.metrics } : {}),
    });
    const tenants = access;
    const reload = tenantsReloader(tenants, log);
    if (tenants.mode === 'tenants') process.on('SIGHUP', reload);
    stopOnSignals(() => {
      process.off('SIGHUP', reload);
      return handle.close().then(() => tenants.close());
    }, log);
    // Announced only now, with the listeners in place: a supervisor (or a test) that stops the server as
    // soon as it reads the address gets a drain and exit code 0, not Node's default death by the signal.
    announceServing({ announce, handle, access: tenants, settings, env, host: args.host });
  } catch (error) {
    announce.error(describeStartupError(error, env));
    await access?.close().catch(() => {});
    process.exit(ConfigError.isInstance(error) && AUTH_VARIABLES.has(error.variable ?? '') ? 2 : 1);
  }
}

/** Variables of authentication: a mistake in one is a usage error (exit 2), like a refused bind. */
const AUTH_VARIABLES = new Set([
  TENANTS_FILE_VARIABLE,
  METRICS_TOKEN_VARIABLE,
  OAUTH_ISSUER_VARIABLE,
  OAUTH_AUDIENCE_VARIABLE,
  OAUTH_TENANT_CLAIM_VARIABLE,
  OAUTH_ANY_TENANT_VARIABLE,
]);

function describeServing(access: TenantAccess, settings: HttpSettings, env: NodeJS.ProcessEnv): string {
  const mode = settings.sessions
    ? `stateful sessions (at most ${settings.sessions.maxSessions}, ${settings.sessions.maxSessionsPerTenant} per tenant, closed after ${Math.round(settings.sessions.idleMs / 1000)} s idle)`
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

/** Re-reads the tenants file, one reload at a time in the order the signals came, and logs what changed. */
function tenantsReloader(tenants: TenantAccess, log: Logger): () => void {
  let reloading: Promise<void> = Promise.resolve();
  return () => {
    reloading = reloading.then(async () => {
      const result = await tenants.reload();
      if (!result.ok) {
        log.warning(
          `tenants file not reloaded, keeping the ${result.tenants} tenant(s) loaded before: ${result.reason}`,
        );
        return;
      }
      const changes = [
        result.added.length > 0 ? `added ${result.added.join(', ')}` : '',
        result.removed.length > 0 ? `removed ${result.removed.join(', ')}` : '',
        result.changed.length > 0 ? `new key for ${result.changed.join(', ')}` : '',
      ].filter((change) => change !== '');
      log.info(
        `tenants file reloaded: ${result.tenants} tenant(s)${changes.length > 0 ? `; ${changes.join('; ')}` : ''}`,
      );
    });
  };
}

/** On the first SIGINT or SIGTERM: drains with `shutDown`, then exits 0 (1 when the drain failed). */
function stopOnSignals(shutDown: () => Promise<void>, log: Logger): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info(`${signal}: shutting down; calls waiting on jobs answer with their handle`);
    shutDown().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  // `on`, not `once`: the listeners stay until the process exits. A module that hooks signals to clean up
  // on exit (proper-lockfile's signal-exit, loaded with the first ledger write) kills the process again
  // with the signal when it finds itself the signal's only listener, which would cut the drain short.
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

/**
 * Where the server listens and how it serves. The address is followed by a space, so that a reader
 * matching `endpoint at (http://\S+)` finds it in either log format.
 */
function announceServing(options: {
  announce: Logger;
  handle: HttpServerHandle;
  access: TenantAccess;
  settings: HttpSettings;
  env: NodeJS.ProcessEnv;
  host: string;
}): void {
  const { announce, handle, settings } = options;
  const serving = describeServing(options.access, settings, options.env);
  if (['0.0.0.0', '::', '[::]'].includes(options.host)) {
    // The Host check refuses the wildcard address itself, so print a name clients can actually use.
    const hostName = settings.allowedHosts[0] ?? 'localhost';
    const url = `http://${hostName.includes(':') ? `[${hostName}]` : hostName}:${handle.port}/mcp`;
    announce.info(
      `MCP Streamable HTTP endpoint at ${url} (listening on every interface; Host names accepted: ` +
        `${[...settings.allowedHosts, 'localhost', '127.0.0.1', '[::1]'].join(', ')}; add more with ` +
        `--allowed-host or POLYMODAL_ALLOWED_HOSTS) (${serving})`,
      { url },
    );
  } else {
    announce.info(`MCP Streamable HTTP endpoint at ${handle.url} (${serving})`, { url: handle.url });
  }
  if (handle.metricsUrl) {
    announce.info(
      `metrics at ${handle.metricsUrl} (loopback peers without a token, others with ${METRICS_TOKEN_VARIABLE})`,
      { url: handle.metricsUrl },
    );
  }
}
