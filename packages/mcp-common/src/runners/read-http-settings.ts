/**
 * HTTP settings from the command line and the environment: legacy sessions (`--sessions` or
 * `POLYMODAL_HTTP_SESSIONS=1`) with their cap (`POLYMODAL_HTTP_MAX_SESSIONS`, default 1,000), each
 * tenant's cap within it (`POLYMODAL_HTTP_MAX_SESSIONS_PER_TENANT`, default 100) and idle time
 * (`POLYMODAL_HTTP_SESSION_IDLE_SECONDS`, default 1,800), and the host names clients may use
 * (`--allowed-host`, repeatable, plus `POLYMODAL_ALLOWED_HOSTS`, comma separated).
 */
import { ConfigError } from '@polymodal/core/errors';
import {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_TENANT,
  DEFAULT_SESSION_IDLE_MS,
  type HttpSessionOptions,
} from './http-session-defaults.js';
import type { ServerArgs } from './parse-server-args.js';

export interface HttpSettings {
  /** false: stateless (the default). */
  sessions: false | Required<HttpSessionOptions>;
  allowedHosts: string[];
}

export function readHttpSettings(
  args: Pick<ServerArgs, 'sessions' | 'allowedHosts'>,
  env: NodeJS.ProcessEnv,
): HttpSettings {
  const fromEnv = (env.POLYMODAL_ALLOWED_HOSTS ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const allowedHosts = [...args.allowedHosts, ...fromEnv];
  if (!(args.sessions || parseSwitch(env.POLYMODAL_HTTP_SESSIONS, 'POLYMODAL_HTTP_SESSIONS'))) {
    return { sessions: false, allowedHosts };
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
