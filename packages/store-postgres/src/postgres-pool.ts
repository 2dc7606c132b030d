/**
 * The store's connection pool: a bounded wait for a connection (pg waits forever by default), idle
 * connections the server drops tolerated, and a location to name the database in messages with its
 * password masked, for a pool this store opens and for one a caller passes in.
 */
import { ConfigError } from '@polymodal/core/errors';
import pg from 'pg';
import { DATABASE_URL_VARIABLE, describeDatabaseUrl } from './describe-database-url.js';
import type { LedgerErrorContext } from './to-ledger-error.js';

export const DEFAULT_POOL_SIZE = 10;
/** A database that does not answer a connection attempt within this long counts as down. */
export const DEFAULT_CONNECTION_TIMEOUT_MS = 5_000;

export interface PostgresPoolOptions {
  /** `postgres://user:password@host:5432/database`. Default: `POLYMODAL_DATABASE_URL` from `env`. */
  connectionString?: string;
  /** Connections at most (default 10). */
  poolSize?: number;
  /** How long a connection attempt may take before the database counts as down (default 5 s). */
  connectionTimeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

/**
 * A pool with this store's settings (bounded connection wait, idle connections dropped by the server
 * tolerated), for callers that share one pool between several ledgers (one per tenant) and the speech
 * governor. Ending it is the caller's.
 */
export function createPostgresPool(options: PostgresPoolOptions = {}): pg.Pool {
  return openPool(options).pool;
}

export function openPool(options: PostgresPoolOptions & { pool?: pg.Pool }): {
  pool: pg.Pool;
  owned: boolean;
  context: LedgerErrorContext;
} {
  if (options.pool) {
    return { pool: options.pool, owned: false, context: describePool(options.pool) };
  }
  const connectionString = options.connectionString ?? (options.env ?? process.env)[DATABASE_URL_VARIABLE];
  if (connectionString === undefined || connectionString.trim() === '') {
    throw new ConfigError(
      DATABASE_URL_VARIABLE,
      `No PostgreSQL database given: set ${DATABASE_URL_VARIABLE} (postgres://user:password@host:5432/database) ` +
        'or pass connectionString.',
    );
  }
  const { location, secrets } = describeDatabaseUrl(connectionString);
  const pool = new pg.Pool({
    connectionString: connectionString.trim(),
    max: positive(options.poolSize, 'poolSize') ?? DEFAULT_POOL_SIZE,
    // pg waits forever by default: a black-holed host would hold a paid call until the host cut it off.
    connectionTimeoutMillis:
      positive(options.connectionTimeoutMs, 'connectionTimeoutMs') ?? DEFAULT_CONNECTION_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    application_name: 'polymodal',
  });
  // An idle connection the server drops (restart, failover) is reported here; without a listener the
  // process would crash. The pool has already discarded it, and the next query opens a new one.
  pool.on('error', () => undefined);
  return { pool, owned: true, context: { location, secrets } };
}

/** The location of a caller's pool, from its settings (its password is never shown). */
function describePool(pool: pg.Pool): LedgerErrorContext {
  const settings = pool.options as pg.PoolConfig;
  if (typeof settings.connectionString === 'string') {
    try {
      return describeDatabaseUrl(settings.connectionString);
    } catch {
      // Not a URL pg understood differently: fall back to the separate settings below.
    }
  }
  const user = typeof settings.user === 'string' ? `${settings.user}${settings.password ? ':***' : ''}@` : '';
  const host = `${settings.host ?? 'localhost'}${settings.port ? `:${settings.port}` : ''}`;
  const password = typeof settings.password === 'string' ? [settings.password] : [];
  return {
    location: `postgres://${user}${host}/${settings.database ?? ''}`,
    secrets: password.filter((secret) => secret.length > 0),
  };
}

function positive(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1) {
    throw new TypeError(`${name} must be a whole number of at least 1 (got ${value}).`);
  }
  return value;
}
