/**
 * The job ledger in PostgreSQL, for server replicas that share jobs: the same `JobLedger` as core's file
 * store, with the database doing the atomic parts — `INSERT … ON CONFLICT DO NOTHING` decides which of
 * several concurrent inserters owns a request, `UPDATE … WHERE revision = $n` is the compare-and-set.
 *
 * One row per (tenant, service, fingerprint): a ledger sees only its own tenant's rows (`tenant`, '' for a
 * server without tenants), so several tenants can share one database and one pool. Times are timestamptz
 * (ISO strings in the API), `request`, `data` and `claim` are JSONB, and other fields (the read
 * schedule's, or ones this version does not know) are kept in `extra` (`ledger-rows.ts`). Migrations are applied on first use (unless `migrate: false`), and
 * every failure surfaces as core's `LedgerError` with the password masked, so the engine refuses paid work
 * before anything is sent. Reconnecting is the pool's: a failed query does not spoil later ones.
 */
import { LedgerError, ValidationError } from '@polymodal/core/errors';
import {
  invalidCursor,
  type JobLedger,
  type LedgerEntry,
  type LedgerPage,
  type LedgerPageOptions,
  type LedgerPatch,
  type NewLedgerEntry,
  parseUpdatedSince,
} from '@polymodal/core/ledger';
import type pg from 'pg';
import {
  assignments,
  deepFreeze,
  insertion,
  type LedgerRow,
  SELECTED,
  type StampRow,
  toEntry,
} from './ledger-rows.js';
import { DEFAULT_SCHEMA, migrate, quoteSchema } from './migrate.js';
import { openPool } from './postgres-pool.js';
import { type LedgerErrorContext, toLedgerError } from './to-ledger-error.js';

export {
  createPostgresPool,
  DEFAULT_CONNECTION_TIMEOUT_MS,
  DEFAULT_POOL_SIZE,
  type PostgresPoolOptions,
} from './postgres-pool.js';

/** What `list` takes (the core ledger's `ListLedgerOptions`). */
type ListOptions = NonNullable<Parameters<JobLedger['list']>[0]>;

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

export function createPostgresJobLedger(options: PostgresJobLedgerOptions = {}): PostgresJobLedger {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const tenant = checkTenant(options.tenant ?? DEFAULT_TENANT);
  const { pool, owned, context } = openPool(options);
  const store = new PostgresStore({ pool, context, schema, tenant, migrate: options.migrate ?? true });
  let closed: Promise<void> | undefined;
  // Plain functions, not methods: callers wrap and pass them on (`{ ...ledger, findById }`).
  return {
    location: context.location,
    schema,
    tenant,
    findByFingerprint: (service, fingerprint) => store.findByFingerprint(service, fingerprint),
    findById: (service, id) => store.findById(service, id),
    list: (listOptions) => store.list(listOptions),
    page: (pageOptions) => store.page(pageOptions),
    insert: (entry) => store.insert(entry),
    async compareAndSet(service, fingerprint, revision, patch, writeOptions) {
      // No entry is at a revision that is not a whole number; asking the database would only fail.
      if (!Number.isInteger(revision)) return undefined;
      return store.updateWhere(
        'tenant = $1 AND service = $2 AND fingerprint = $3 AND revision = $4',
        [tenant, checkService(service), fingerprint, revision],
        patch,
        writeOptions?.durable ?? true,
      );
    },
    update: async (service, fingerprint, patch) =>
      store.updateWhere(
        'tenant = $1 AND service = $2 AND fingerprint = $3',
        [tenant, checkService(service), fingerprint],
        patch,
      ),
    updateById: async (service, id, patch) =>
      store.updateWhere(
        'tenant = $1 AND service = $2 AND id = $3',
        [tenant, checkService(service), id],
        patch,
      ),
    ready: () => store.ready(),
    close() {
      closed ??= owned ? pool.end() : Promise.resolve();
      return closed;
    },
  };
}

interface PostgresStoreOptions {
  pool: pg.Pool;
  context: LedgerErrorContext;
  schema: string;
  tenant: string;
  /** Apply pending migrations on first use, else only check that the table is there. */
  migrate: boolean;
}

/** One tenant's entries in one schema's `job_ledger` table. */
class PostgresStore {
  private readonly table: string;
  private prepared: Promise<void> | undefined;
  /**
   * What lists last parsed, per row (`seq`), with the row version it was at (the revision, and `xmin`, the
   * transaction that wrote the row: every write raises the one, and a person's UPDATE by hand changes the
   * other), so an entry is fetched again only once it changed. Frozen, since every later list hands out the same
   * objects. At most KEPT_ROWS, the least recently listed dropped first: what a server holds is bounded by
   * what it shows, not by the tenant's history.
   */
  private readonly listed = new Map<string, { version: string; entry: LedgerEntry }>();

  constructor(private readonly options: PostgresStoreOptions) {
    this.table = `${quoteSchema(options.schema)}.job_ledger`;
  }

  async findByFingerprint(service: string, fingerprint: string): Promise<LedgerEntry | undefined> {
    const rows = await this.query<LedgerRow>(
      `SELECT ${SELECTED} FROM ${this.table} WHERE tenant = $1 AND service = $2 AND fingerprint = $3`,
      [this.options.tenant, checkService(service), fingerprint],
    );
    return rows[0] ? toEntry(rows[0]) : undefined;
  }

  async findById(service: string, id: string): Promise<LedgerEntry | undefined> {
    const rows = await this.query<LedgerRow>(
      `SELECT ${SELECTED} FROM ${this.table} WHERE tenant = $1 AND service = $2 AND id = $3`,
      [this.options.tenant, checkService(service), id],
    );
    return rows[0] ? toEntry(rows[0]) : undefined;
  }

  async insert(input: NewLedgerEntry, attempt = 1): Promise<{ inserted: boolean; entry: LedgerEntry }> {
    const service = checkService(input.service);
    const values: unknown[] = [this.options.tenant, service, input.fingerprint, input.createdAt ?? null];
    const fields = insertion(input, values);
    const columns = [
      'tenant',
      'service',
      'fingerprint',
      'created_at',
      'updated_at',
      'revision',
      ...fields.columns,
    ];
    const placeholders = [
      '$1',
      '$2',
      '$3',
      'COALESCE($4::timestamptz, now())',
      'now()',
      '1',
      ...fields.placeholders,
    ];
    // Of concurrent inserters exactly one gets a row back; the others wait for its commit and get none.
    const rows = await this.query<LedgerRow>(
      `INSERT INTO ${this.table} (${columns.join(', ')}) VALUES (${placeholders.join(', ')})
       ON CONFLICT (tenant, service, fingerprint) DO NOTHING RETURNING ${SELECTED}`,
      values,
    );
    if (rows[0]) return { inserted: true, entry: toEntry(rows[0]) };
    const existing = await this.findByFingerprint(service, input.fingerprint);
    if (existing) return { inserted: false, entry: existing };
    // Entries are never deleted by the store, so this takes someone deleting rows by hand meanwhile.
    if (attempt < 3) return this.insert(input, attempt + 1);
    const { location } = this.options.context;
    throw new LedgerError(
      `The job ledger at ${location} kept losing the entry it was inserting (rows deleted meanwhile?).`,
      { location },
    );
  }

  async list(options: ListOptions = {}): Promise<LedgerEntry[]> {
    const { tenant } = this.options;
    const values: unknown[] = [tenant];
    let where = 'tenant = $1';
    if (options.service !== undefined) {
      values.push(checkService(options.service));
      where += ` AND service = $${values.length}`;
    }
    if (options.updatedSince !== undefined) {
      const since = new Date(parseUpdatedSince(options.updatedSince));
      // The day bounds the index range (job_ledger_updated_day); the instant decides within it.
      values.push(since.toISOString().slice(0, 10), since);
      where += ` AND updated_day >= $${values.length - 1}::date AND updated_at >= $${values.length}`;
    }
    const limit = limitClause(options.limit, values);
    // Which rows, and at which revision: a row whose revision this ledger parsed already is not fetched again.
    const stamps = await this.query<StampRow>(
      `SELECT seq, ${ROW_VERSION} FROM ${this.table} WHERE ${where} ORDER BY created_at DESC, seq DESC${limit}`,
      values,
    );
    return this.entriesOf(stamps);
  }

  /**
   * A page newest first through the (tenant, service, created_at, seq) indexes: the page's rows and one more
   * (whether a next page exists), never the rest. The cursor is the last row's exact creation time (µs) and
   * `seq`, so rows added meanwhile, created later, never show on a later page.
   */
  async page(options: LedgerPageOptions): Promise<LedgerPage> {
    const values: unknown[] = [this.options.tenant];
    const where = ['tenant = $1'];
    const add = (condition: string, value: unknown) => {
      values.push(value);
      where.push(condition.replace('$?', `$${values.length}`));
    };
    const services = options.services?.map(checkService);
    if (services?.length === 1) add('service = $?', services[0]);
    else if (services) add('service = ANY($?::text[])', services);
    if (options.statuses) add('last_status = ANY($?::text[])', [...options.statuses]);
    if (options.excludeStatuses) add('last_status <> ALL($?::text[])', [...options.excludeStatuses]);
    if (options.cursor !== undefined) {
      const after = decodeCursor(options.cursor);
      values.push(after.createdAt, after.seq);
      where.push(`(created_at, seq) < ($${values.length - 1}::timestamptz, $${values.length}::bigint)`);
    }
    const limit = Math.max(0, Math.floor(Number.isFinite(options.limit) ? options.limit : 0));
    values.push(limit + 1);
    const stamps = await this.query<StampRow & { position: string }>(
      `SELECT seq, ${ROW_VERSION}, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS position
         FROM ${this.table} WHERE ${where.join(' AND ')}
        ORDER BY created_at DESC, seq DESC LIMIT $${values.length}`,
      values,
    );
    const shown = stamps.slice(0, limit);
    const entries = await this.entriesOf(shown);
    const last = shown.at(-1);
    return stamps.length > limit && last
      ? { entries, nextCursor: encodeCursor(last.position, last.seq) }
      : { entries };
  }

  /**
   * Applies `patch` to the row `condition` selects. Not durable: the statement's own transaction commits
   * without waiting for its WAL to reach the disk (`synchronous_commit` off for this transaction only, set
   * within the one statement, so no extra round trip). A crash of the database may then lose the update
   * whole, never apply half of it; every earlier durable commit stays, and a later durable commit flushes
   * this one with it.
   */
  async updateWhere(
    condition: string,
    keys: unknown[],
    patch: LedgerPatch,
    durable = true,
  ): Promise<LedgerEntry | undefined> {
    const values = [...keys];
    const sets = assignments(patch, values);
    const relaxed = durable ? '' : ` FROM (SELECT set_config('synchronous_commit', 'off', true)) AS relaxed`;
    const rows = await this.query<LedgerRow>(
      `UPDATE ${this.table} SET ${sets}${relaxed} WHERE ${condition} RETURNING ${SELECTED}`,
      values,
    );
    return rows[0] ? toEntry(rows[0]) : undefined;
  }

  /**
   * Resolves once the database answers and its schema is migrated (checked anew on every call, so it can
   * back a readiness probe); rejects with `LedgerError` otherwise.
   */
  async ready(): Promise<void> {
    await this.prepare();
    try {
      await this.options.pool.query('SELECT 1');
    } catch (error) {
      throw toLedgerError(error, this.options.context);
    }
  }

  /**
   * The entries of the rows `stamps` names, in their order: those parsed at the same revision before from
   * memory, the others fetched. A row written again between the two queries is listed as the second found it.
   */
  private async entriesOf(stamps: StampRow[]): Promise<LedgerEntry[]> {
    const found = new Map<string, LedgerEntry>();
    const stale: string[] = [];
    for (const row of stamps) {
      const seq = String(row.seq);
      const kept = this.listed.get(seq);
      if (kept?.version === row.version) {
        found.set(seq, kept.entry);
        this.keep(seq, kept);
      } else stale.push(seq);
    }
    if (stale.length > 0) {
      const rows = await this.query<LedgerRow & StampRow>(
        `SELECT ${SELECTED}, seq, ${ROW_VERSION} FROM ${this.table} WHERE tenant = $1 AND seq = ANY($2::bigint[])`,
        [this.options.tenant, stale],
      );
      for (const row of rows) {
        const kept = { version: row.version, entry: deepFreeze(toEntry(row)) };
        found.set(String(row.seq), kept.entry);
        this.keep(String(row.seq), kept);
      }
    }
    return stamps.flatMap((row) => found.get(String(row.seq)) ?? []);
  }

  /** Keeps a parsed row as the most recently used, dropping the least recently used past KEPT_ROWS. */
  private keep(seq: string, kept: { version: string; entry: LedgerEntry }): void {
    this.listed.delete(seq);
    this.listed.set(seq, kept);
    if (this.listed.size > KEPT_ROWS) this.listed.delete(this.listed.keys().next().value as string);
  }

  private async query<Row extends object>(text: string, values: unknown[]): Promise<Row[]> {
    await this.prepare();
    try {
      return (await this.options.pool.query<Row>(text, values)).rows;
    } catch (error) {
      throw toLedgerError(error, this.options.context);
    }
  }

  /** Migrates (or checks the table) once; a failure is not remembered, so the next call tries again. */
  private prepare(): Promise<void> {
    const { pool, schema, context } = this.options;
    this.prepared ??= (async () => {
      if (this.options.migrate) await migrate(pool, { schema });
      else await pool.query(`SELECT 1 FROM ${this.table} LIMIT 0`);
    })().catch((error: unknown) => {
      this.prepared = undefined;
      throw toLedgerError(error, context);
    });
    return this.prepared;
  }
}

/** A row's version as the cache compares it: its revision and the transaction that last wrote it. */
const ROW_VERSION = `revision || ':' || xmin::text AS version`;
/** Parsed rows kept per ledger (see `PostgresStore.listed`). */
const KEPT_ROWS = 4_000;
const CURSOR = /^p1 (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z) (\d{1,19})$/;

function encodeCursor(createdAt: string, seq: string | number): string {
  return Buffer.from(`p1 ${createdAt} ${seq}`).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: string; seq: string } {
  const match = CURSOR.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match?.[1] || !match[2]) throw invalidCursor();
  return { createdAt: match[1], seq: match[2] };
}

/** A LIMIT clause for `limit` (its value pushed on `values`), or none. */
function limitClause(limit: number | undefined, values: unknown[]): string {
  if (limit === undefined) return '';
  const count = Number.isNaN(limit) ? 0 : Math.max(0, Math.floor(limit));
  if (!Number.isFinite(count)) return '';
  values.push(count);
  return ` LIMIT $${values.length}`;
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
