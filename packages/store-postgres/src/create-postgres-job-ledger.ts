/**
 * The job ledger in PostgreSQL, for server replicas that share jobs: the same `JobLedger` as core's file
 * store, with the database doing the atomic parts — `INSERT … ON CONFLICT DO NOTHING` decides which of
 * several concurrent inserters owns a request, `UPDATE … WHERE revision = $n` is the compare-and-set.
 *
 * One row per (tenant, service, fingerprint): a ledger sees only its own tenant's rows (`tenant`, '' for a
 * server without tenants), so several tenants can share one database and one pool. Times are timestamptz
 * (ISO strings in the API), `request`, `data` and `claim` are JSONB, and fields this version does not know
 * are kept in `extra` rather than lost. Migrations are applied on first use (unless `migrate: false`), and
 * every failure surfaces as core's `LedgerError` with the password masked, so the engine refuses paid work
 * before anything is sent. Reconnecting is the pool's: a failed query does not spoil later ones.
 */
import { ConfigError, LedgerError, ValidationError } from '@polymodal/core/errors';
import {
  type JobLedger,
  type LedgerClaim,
  type LedgerEntry,
  type LedgerPatch,
  type NewLedgerEntry,
  parseUpdatedSince,
} from '@polymodal/core/ledger';
import pg from 'pg';
import { DATABASE_URL_VARIABLE, describeDatabaseUrl } from './describe-database-url.js';
import { DEFAULT_SCHEMA, migrate, quoteSchema } from './migrate.js';
import { type LedgerErrorContext, toLedgerError } from './to-ledger-error.js';

export const DEFAULT_POOL_SIZE = 10;
/** A database that does not answer a connection attempt within this long counts as down. */
export const DEFAULT_CONNECTION_TIMEOUT_MS = 5_000;
/** A server without tenants keeps its entries under the one unnamed tenant. */
const DEFAULT_TENANT = '';
/** Tenant ids are short, printable names (the tenants file checks them too; this store keeps them apart). */
const TENANT_NAME = /^[A-Za-z0-9._-]{0,128}$/;
/** The file store's rule, kept here so that entries move between the two stores unchanged. */
const SERVICE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export interface PostgresJobLedgerOptions {
  /** `postgres://user:password@host:5432/database`. Default: `POLYMODAL_DATABASE_URL` from `env`. */
  connectionString?: string;
  /** A pool of the caller's (then `poolSize` and `connectionTimeoutMs` are its own, and `close` leaves it open). */
  pool?: pg.Pool;
  /** Schema holding the tables. Default `public`. */
  schema?: string;
  /**
   * Whose entries these are: every read, write and list is limited to this tenant's rows, so tenants
   * sharing a database (and a pool) never see each other's jobs. Default '' (a server without tenants).
   */
  tenant?: string;
  /** Connections at most (default 10). */
  poolSize?: number;
  /** How long a connection attempt may take before the database counts as down (default 5 s). */
  connectionTimeoutMs?: number;
  /** Apply pending migrations on first use (default true); false when operators run `polymodal-migrate`. */
  migrate?: boolean;
  env?: NodeJS.ProcessEnv;
}

export interface PostgresJobLedger extends JobLedger {
  readonly schema: string;
  readonly tenant: string;
  /**
   * Resolves once the database answers and its schema is migrated (checked anew on every call, so it
   * can back a readiness probe); rejects with `LedgerError` otherwise.
   */
  ready(): Promise<void>;
  /** Ends the pool this ledger created; a pool passed in is its owner's to end. */
  close(): Promise<void>;
}

interface LedgerRow {
  service: string;
  fingerprint: string;
  id: string | null;
  receipt: string | null;
  receipt_issued_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
  last_status: string;
  title: string | null;
  request: Record<string, unknown> | null;
  data: Record<string, unknown> | null;
  claim: LedgerClaim | null;
  last_read_at: Date | string | null;
  next_read_at: Date | string | null;
  extra: Record<string, unknown> | null;
  revision: number;
}

/** A row's identity (never reused) and its revision; `seq` is a bigint, which pg answers as a string. */
interface StampRow {
  seq: string | number;
  revision: number;
}

type ColumnType = 'text' | 'timestamptz' | 'jsonb';

/** Entry fields with a column of their own; any other field goes to `extra`. */
const COLUMNS = new Map<string, { column: string; type: ColumnType }>([
  ['id', { column: 'id', type: 'text' }],
  ['receipt', { column: 'receipt', type: 'text' }],
  ['receiptIssuedAt', { column: 'receipt_issued_at', type: 'timestamptz' }],
  ['lastStatus', { column: 'last_status', type: 'text' }],
  ['title', { column: 'title', type: 'text' }],
  ['request', { column: 'request', type: 'jsonb' }],
  ['data', { column: 'data', type: 'jsonb' }],
  ['claim', { column: 'claim', type: 'jsonb' }],
  ['lastReadAt', { column: 'last_read_at', type: 'timestamptz' }],
  ['nextReadAt', { column: 'next_read_at', type: 'timestamptz' }],
]);
/** Identity and bookkeeping: the ledger's own, never taken from a patch. */
const OWN_FIELDS = new Set(['service', 'fingerprint', 'createdAt', 'updatedAt', 'revision']);

const SELECTED = [
  'service',
  'fingerprint',
  'id',
  'receipt',
  'receipt_issued_at',
  'created_at',
  'updated_at',
  'last_status',
  'title',
  'request',
  'data',
  'claim',
  'last_read_at',
  'next_read_at',
  'extra',
  'revision',
].join(', ');

export function createPostgresJobLedger(options: PostgresJobLedgerOptions = {}): PostgresJobLedger {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const table = `${quoteSchema(schema)}.job_ledger`;
  const tenant = checkTenant(options.tenant ?? DEFAULT_TENANT);
  const { pool, owned, context } = openPool(options);
  const { location } = context;
  const migrateOnStart = options.migrate ?? true;
  let prepared: Promise<void> | undefined;
  let closed: Promise<void> | undefined;

  /** Migrates (or checks the table) once; a failure is not remembered, so the next call tries again. */
  function prepare(): Promise<void> {
    prepared ??= (async () => {
      if (migrateOnStart) await migrate(pool, { schema });
      else await pool.query(`SELECT 1 FROM ${table} LIMIT 0`);
    })().catch((error: unknown) => {
      prepared = undefined;
      throw toLedgerError(error, context);
    });
    return prepared;
  }

  async function query(text: string, values: unknown[]): Promise<LedgerRow[]> {
    return queryRows<LedgerRow>(text, values);
  }

  async function queryRows<Row extends object>(text: string, values: unknown[]): Promise<Row[]> {
    await prepare();
    try {
      return (await pool.query<Row>(text, values)).rows;
    } catch (error) {
      throw toLedgerError(error, context);
    }
  }

  /**
   * What `list` last parsed, per row (`seq`), with the revision it was at: every write raises the revision,
   * so an entry is fetched again only once it changed. Frozen, since every later list hands out the same
   * objects. Holds at most the tenant's entries (small records: statuses, requests, credit figures).
   */
  const listed = new Map<string, { revision: number; entry: LedgerEntry }>();

  /** SET clauses for a patch; `values` receives the parameters (never a value in the SQL text). */
  function assignments(patch: LedgerPatch, values: unknown[]): string {
    const sets: string[] = [];
    const extra: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(patch)) {
      if (value === undefined || OWN_FIELDS.has(field)) continue;
      const target = COLUMNS.get(field);
      if (target) {
        values.push(encode(value, target.type));
        sets.push(`${target.column} = $${values.length}::${target.type}`);
      } else {
        extra[field] = value;
      }
    }
    if (Object.keys(extra).length > 0) {
      values.push(JSON.stringify(extra));
      sets.push(`extra = extra || $${values.length}::jsonb`);
    }
    sets.push('updated_at = now()', 'revision = revision + 1');
    return sets.join(', ');
  }

  async function updateWhere(
    condition: string,
    keys: unknown[],
    patch: LedgerPatch,
    durable = true,
  ): Promise<LedgerEntry | undefined> {
    const values = [...keys];
    const sets = assignments(patch, values);
    // Not durable: the statement's own transaction commits without waiting for its WAL to reach the disk
    // (`synchronous_commit` off for this transaction only, set within the one statement, so no extra round
    // trip). A crash of the database may then lose the update whole, never apply half of it; every earlier
    // durable commit stays, and a later durable commit flushes this one with it.
    const relaxed = durable ? '' : ` FROM (SELECT set_config('synchronous_commit', 'off', true)) AS relaxed`;
    const rows = await query(
      `UPDATE ${table} SET ${sets}${relaxed} WHERE ${condition} RETURNING ${SELECTED}`,
      values,
    );
    return rows[0] ? toEntry(rows[0]) : undefined;
  }

  async function findByFingerprint(service: string, fingerprint: string): Promise<LedgerEntry | undefined> {
    const rows = await query(
      `SELECT ${SELECTED} FROM ${table} WHERE tenant = $1 AND service = $2 AND fingerprint = $3`,
      [tenant, checkService(service), fingerprint],
    );
    return rows[0] ? toEntry(rows[0]) : undefined;
  }

  async function insert(
    input: NewLedgerEntry,
    attempt = 1,
  ): Promise<{ inserted: boolean; entry: LedgerEntry }> {
    const service = checkService(input.service);
    const values: unknown[] = [tenant, service, input.fingerprint, input.createdAt ?? null];
    const columns = ['tenant', 'service', 'fingerprint', 'created_at', 'updated_at', 'revision'];
    const placeholders = ['$1', '$2', '$3', 'COALESCE($4::timestamptz, now())', 'now()', '1'];
    const extra: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(input)) {
      if (value === undefined || OWN_FIELDS.has(field)) continue;
      const target = COLUMNS.get(field);
      if (target) {
        values.push(encode(value, target.type));
        columns.push(target.column);
        placeholders.push(`$${values.length}::${target.type}`);
      } else {
        extra[field] = value;
      }
    }
    values.push(JSON.stringify(extra));
    columns.push('extra');
    placeholders.push(`$${values.length}::jsonb`);
    // Of concurrent inserters exactly one gets a row back; the others wait for its commit and get none.
    const rows = await query(
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${placeholders.join(', ')})
       ON CONFLICT (tenant, service, fingerprint) DO NOTHING RETURNING ${SELECTED}`,
      values,
    );
    if (rows[0]) return { inserted: true, entry: toEntry(rows[0]) };
    const existing = await findByFingerprint(service, input.fingerprint);
    if (existing) return { inserted: false, entry: existing };
    // Entries are never deleted by the store, so this takes someone deleting rows by hand meanwhile.
    if (attempt < 3) return insert(input, attempt + 1);
    throw new LedgerError(
      `The job ledger at ${location} kept losing the entry it was inserting (rows deleted meanwhile?).`,
      { location },
    );
  }

  return {
    location,
    schema,
    tenant,
    findByFingerprint,
    async findById(service, id) {
      const rows = await query(
        `SELECT ${SELECTED} FROM ${table} WHERE tenant = $1 AND service = $2 AND id = $3`,
        [tenant, checkService(service), id],
      );
      return rows[0] ? toEntry(rows[0]) : undefined;
    },
    async list(listOptions = {}) {
      const values: unknown[] = [tenant];
      let where = 'tenant = $1';
      if (listOptions.service !== undefined) {
        values.push(checkService(listOptions.service));
        where += ` AND service = $${values.length}`;
      }
      if (listOptions.updatedSince !== undefined) {
        values.push(new Date(parseUpdatedSince(listOptions.updatedSince)));
        where += ` AND updated_at >= $${values.length}`;
      }
      let limit = '';
      if (listOptions.limit !== undefined) {
        const count = Number.isNaN(listOptions.limit) ? 0 : Math.max(0, Math.floor(listOptions.limit));
        if (Number.isFinite(count)) {
          values.push(count);
          limit = ` LIMIT $${values.length}`;
        }
      }
      // Which rows, and at which revision: a row whose revision this ledger parsed already is not fetched
      // again (issue 24: list_jobs fetched and parsed every row's JSON on every call).
      const stamps = await queryRows<StampRow>(
        `SELECT seq, revision FROM ${table} WHERE ${where} ORDER BY created_at DESC, seq DESC${limit}`,
        values,
      );
      const stale = stamps.filter((row) => listed.get(String(row.seq))?.revision !== row.revision);
      if (stale.length > 0) {
        const rows = await queryRows<LedgerRow & StampRow>(
          `SELECT ${SELECTED}, seq FROM ${table} WHERE tenant = $1 AND seq = ANY($2::bigint[])`,
          [tenant, stale.map((row) => String(row.seq))],
        );
        for (const row of rows) {
          listed.set(String(row.seq), { revision: row.revision, entry: deepFreeze(toEntry(row)) });
        }
      }
      const entries: LedgerEntry[] = [];
      for (const row of stamps) {
        // A row written again between the two queries is listed as the second one found it.
        const kept = listed.get(String(row.seq));
        if (kept) entries.push(kept.entry);
      }
      if (listOptions.service === undefined && listOptions.updatedSince === undefined && limit === '') {
        // A whole list: rows no longer there are forgotten.
        const present = new Set(stamps.map((row) => String(row.seq)));
        for (const seq of listed.keys()) if (!present.has(seq)) listed.delete(seq);
      }
      return entries;
    },
    insert: (entry) => insert(entry),
    async compareAndSet(service, fingerprint, revision, patch, options) {
      // No entry is at a revision that is not a whole number; asking the database would only fail.
      if (!Number.isInteger(revision)) return undefined;
      return updateWhere(
        'tenant = $1 AND service = $2 AND fingerprint = $3 AND revision = $4',
        [tenant, checkService(service), fingerprint, revision],
        patch,
        options?.durable ?? true,
      );
    },
    update(service, fingerprint, patch) {
      return updateWhere(
        'tenant = $1 AND service = $2 AND fingerprint = $3',
        [tenant, checkService(service), fingerprint],
        patch,
      );
    },
    updateById(service, id, patch) {
      return updateWhere(
        'tenant = $1 AND service = $2 AND id = $3',
        [tenant, checkService(service), id],
        patch,
      );
    },
    async ready() {
      await prepare();
      try {
        await pool.query('SELECT 1');
      } catch (error) {
        throw toLedgerError(error, context);
      }
    },
    close() {
      closed ??= owned ? pool.end() : Promise.resolve();
      return closed;
    },
  };
}

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

function openPool(options: PostgresPoolOptions & { pool?: pg.Pool }): {
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

function checkTenant(tenant: string): string {
  if (typeof tenant !== 'string' || !TENANT_NAME.test(tenant)) {
    throw new TypeError(
      `tenant must be letters, digits, ".", "_" or "-", at most 128 (got ${JSON.stringify(tenant)}).`,
    );
  }
  return tenant;
}

function checkService(service: string): string {
  if (!SERVICE_NAME.test(service)) {
    throw new ValidationError(
      `Invalid service name for the job ledger: use letters, digits, ".", "_" or "-" (got ${JSON.stringify(service)}).`,
      [{ path: 'service', message: 'invalid service name' }],
    );
  }
  return service;
}

function encode(value: unknown, type: ColumnType): unknown {
  if (value === null) return null;
  // JSON text, not the driver's own conversion: pg would send an array as a PostgreSQL array.
  return type === 'jsonb' ? JSON.stringify(value) : value;
}

function iso(value: Date | string): string;
function iso(value: Date | string | null): string | null;
function iso(value: Date | string | null): string | null {
  if (value === null) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

function toEntry(row: LedgerRow): LedgerEntry {
  return {
    // First, so that a stray field can never override a column.
    ...(row.extra ?? {}),
    service: row.service,
    fingerprint: row.fingerprint,
    id: row.id,
    receipt: row.receipt,
    receiptIssuedAt: iso(row.receipt_issued_at),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    lastStatus: row.last_status,
    title: row.title,
    ...(row.request === null ? {} : { request: row.request }),
    ...(row.data === null ? {} : { data: row.data }),
    claim: row.claim,
    lastReadAt: iso(row.last_read_at),
    nextReadAt: iso(row.next_read_at),
    revision: row.revision,
  };
}

/** Freezes `value` and every object in it (plain JSON data: objects and arrays; dates are strings here). */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
