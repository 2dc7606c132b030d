/**
 * HTTP settings from the command line and the environment: legacy sessions (`--sessions` or
 * `POLYMODAL_HTTP_SESSIONS=1`) with their cap (`POLYMODAL_HTTP_MAX_SESSIONS`, default 1,000), each
 * tenant's cap within it (`POLYMODAL_HTTP_MAX_SESSIONS_PER_TENANT`, default 100) and idle time
 * (`POLYMODAL_HTTP_SESSION_IDLE_SECONDS`, default 1,800), the metrics' own listener (`--metrics-port` or
 * `POLYMODAL_METRICS_PORT`, on `--metrics-host` or `POLYMODAL_METRICS_HOST`, default 127.0.0.1), and the host names clients may use
 * (`--allowed-host`, repeatable, plus `POLYMODAL_ALLOWED_HOSTS`, comma separated).
 */
import { ConfigError } from '@polymodal/core/errors';
import { DEFAULT_METRICS_HOST } from '../metrics/metrics-access.js';
import {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_TENANT,
  DEFAULT_SESSION_IDLE_MS,
  type HttpSessionOptions,
} from './http-session-defaults.js';
import { parsePort, type ServerArgs } from './parse-server-args.js';

export interface HttpSettings {
  /** false: stateless (the default). */
  sessions: false | Required<HttpSessionOptions>;
  allowedHosts: string[];
  /** Where `/metrics` has a listener of its own; undefined: none (then only the MCP port, with the token). */
  metrics: { port: number; host: string } | undefined;
}

export function readHttpSettings(
  args: Pick<ServerArgs, 'sessions' | 'allowedHosts'> &
    Partial<Pick<ServerArgs, 'metricsPort' | 'metricsHost'>>,
  env: NodeJS.ProcessEnv,
): HttpSettings {
  const fromEnv = (env.POLYMODAL_ALLOWED_HOSTS ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const allowedHosts = [...args.allowedHosts, ...fromEnv];
  const metricsPort =
    args.metricsPort ??
    (env.POLYMODAL_METRICS_PORT?.trim()
      ? parsePort(env.POLYMODAL_METRICS_PORT, 'POLYMODAL_METRICS_PORT')
      : undefined);
  const metrics =
    metricsPort === undefined
      ? undefined
      : {
          port: metricsPort,
          host: args.metricsHost ?? (env.POLYMODAL_METRICS_HOST?.trim() || DEFAULT_METRICS_HOST),
        };
  if (!(args.sessions || parseSwitch(env.POLYMODAL_HTTP_SESSIONS, 'POLYMODAL_HTTP_SESSIONS'))) {
    return { sessions: false, allowedHosts, metrics };
  }
  const maxSessions =
    parsePositive(env.POLYMODAL_HTTP_MAX_SESSIONS, 'POLYMODAL_HTTP_MAX_SESSIONS', true) ??
    DEFAULT_MAX_SESSIONS;
  const maxSessionsPerTenant =
    parsePositive(
      env.POLYMODAL_HTTP_MAX_SESSIONS_PER_TENANT,
      'POLYMODAL_HTTP_MAX_SESSIONS_PER_TENANT',
      true,
    ) ?? DEFAULT_MAX_SESSIONS_PER_TENANT;
  const idleSeconds = parsePositive(
    env.POLYMODAL_HTTP_SESSION_IDLE_SECONDS,
    'POLYMODAL_HTTP_SESSION_IDLE_SECONDS',
    false,
  );
  return {
    sessions: {
      maxSessions,
      maxSessionsPerTenant,
      idleMs: idleSeconds === undefined ? DEFAULT_SESSION_IDLE_MS : Math.round(idleSeconds * 1000),
    },
    allowedHosts,
    metrics,
  };
}

function parseSwitch(value: string | undefined, variable: string): boolean {
  const normalized = value?.trim().toLowerCase() ?? '';
  if (['', '0', 'false', 'no', 'off'].includes(normalized)) return false;
  if (['1', 'true', 'yes', 'on'].includes(normalized)) return true;
  throw new ConfigError(variable, `${variable} must be 1 (on) or 0 (off).`);
}

function parsePositive(value: string | undefined, variable: string, integer: boolean): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0 || (integer && !Number.isInteger(parsed))) {
    throw new ConfigError(
      variable,
      `${variable} must be a ${integer ? 'whole number of at least 1' : 'number of seconds above 0'}.`,
    );
  }
  return parsed;
}
