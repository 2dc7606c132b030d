/**
 * Versioned SQL migrations of the PostgreSQL store: the files in the package's `migrations/` folder
 * (`NNN_name.sql`), applied in order, each once, recorded in `schema_migrations(version, name, applied_at)`.
 *
 * Pending migrations run in one transaction under a transaction-scoped advisory lock, so replicas
 * starting at once apply each migration exactly once (the others wait, then find nothing left to do), and
 * a failed migration leaves the database as it was. When nothing is pending, nothing is locked or created.
 */
import { readdir, readFile } from 'node:fs/promises';
import type pg from 'pg';

export const DEFAULT_SCHEMA = 'public';
/** Unquoted identifiers only, so that a schema name can never carry SQL. */
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const MIGRATION_FILE = /^(\d+)_([A-Za-z0-9_]+)\.sql$/;
const MIGRATIONS_DIR = new URL('../migrations/', import.meta.url);
/** Bounds the wait for another replica's migration (and any lock a migration needs). */
const LOCK_TIMEOUT = '60s';

export interface Migration {
  version: number;
  /** File name without `.sql`, e.g. `001_job_ledger`. */
  name: string;
  sql: string;
}

export interface MigrateOptions {
  /** Schema holding the store's tables (created if missing). Default `public`. */
  schema?: string;
  /** The migrations to apply (default: the package's `migrations/` folder). */
  migrations?: Migration[];
}

export interface MigrateResult {
  /** Names of the migrations this call applied, in order (empty when the schema was up to date). */
  applied: string[];
  /** The highest version now recorded. */
  version: number;
}

/** Checks a schema name and returns it quoted for SQL. */
export function quoteSchema(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) {
    throw new TypeError(
      `Invalid PostgreSQL schema name for the job ledger: use letters, digits and "_" (got ${JSON.stringify(schema)}).`,
    );
  }
  return `"${schema}"`;
}

/** The migrations shipped with this package, in version order. */
export async function loadMigrations(): Promise<Migration[]> {
  const names = (await readdir(MIGRATIONS_DIR)).filter((name) => MIGRATION_FILE.test(name));
  const migrations = await Promise.all(
    names.map(async (file) => {
      const [, version, name] = MIGRATION_FILE.exec(file) as RegExpExecArray;
      return {
        version: Number(version),
        name: `${version}_${name}`,
        sql: await readFile(new URL(file, MIGRATIONS_DIR), 'utf8'),
      };
    }),
  );
  return sortMigrations(migrations);
}

/** Applies the migrations not yet recorded in `schema`; idempotent and safe to run from many replicas at once. */
export async function migrate(pool: pg.Pool, options: MigrateOptions = {}): Promise<MigrateResult> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const quoted = quoteSchema(schema);
  const migrations = sortMigrations(options.migrations ?? (await loadMigrations()));
  // Up to date (the usual start): answered by reading alone, so that a server whose database user may
  // not create schemas or tables starts once an operator has migrated.
  const recorded = await recordedVersions(pool, quoted);
  if (recorded && migrations.every((migration) => recorded.has(migration.version))) {
    return { applied: [], version: Math.max(0, ...recorded) };
  }
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('BEGIN');
    try {
      await client.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
      // Per schema, so that stores in different schemas of one database do not wait for each other.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`polymodal-migrate:${schema}`]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
      await client.query(`SET LOCAL search_path TO ${quoted}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS schema_migrations (
           version integer PRIMARY KEY,
           name text NOT NULL,
           applied_at timestamptz NOT NULL DEFAULT now()
         )`,
      );
      const recorded = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
      const done = new Set(recorded.rows.map((row) => row.version));
      const applied: string[] = [];
      for (const migration of migrations) {
        if (done.has(migration.version)) continue;
        await client.query(migration.sql);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
          migration.version,
          migration.name,
        ]);
        done.add(migration.version);
        applied.push(migration.name);
      }
      await client.query('COMMIT');
      return { applied, version: Math.max(0, ...done) };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw error;
    }
  } finally {
    // A connection that could not even roll back is dropped rather than handed to the next caller.
    client.release(broken);
  }
}

/** The versions recorded in `schema`, or undefined when it has no migrations table yet. */
async function recordedVersions(pool: pg.Pool, quoted: string): Promise<Set<number> | undefined> {
  const table = await pool.query<{ found: string | null }>('SELECT to_regclass($1) AS found', [
    `${quoted}.schema_migrations`,
  ]);
  if (!table.rows[0]?.found) return undefined;
  const rows = await pool.query<{ version: number }>(`SELECT version FROM ${quoted}.schema_migrations`);
  return new Set(rows.rows.map((row) => row.version));
}

function sortMigrations(migrations: Migration[]): Migration[] {
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  for (let index = 1; index < sorted.length; index++) {
    if (sorted[index]?.version === sorted[index - 1]?.version) {
      throw new Error(`Two migrations have version ${sorted[index]?.version}; each version must be unique.`);
    }
  }
  return sorted;
}
