/**
 * Migrations against a real PostgreSQL: applied once, idempotent, safe when replicas start at once, and
 * all or nothing; and `polymodal-migrate` as an operator runs it (exit codes, what it prints, no password).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresJobLedger, loadMigrations, migrate, runMigrateCli } from '../src/index.js';
import { adminPool, freePort, startPostgres, type TestPostgres } from './support/start-postgres.js';

let server: TestPostgres;
let admin: ReturnType<typeof adminPool>;

beforeAll(async () => {
  server = await startPostgres();
  admin = adminPool(server.url);
});
afterAll(async () => {
  await admin?.end();
  await server?.destroy();
});

async function versions(schema: string): Promise<number[]> {
  const result = await admin.query<{ version: number }>(
    `SELECT version FROM "${schema}".schema_migrations ORDER BY version`,
  );
  return result.rows.map((row) => row.version);
}

async function tableExists(schema: string, table: string): Promise<boolean> {
  const result = await admin.query('SELECT to_regclass($1) AS found', [`"${schema}".${table}`]);
  return result.rows[0]?.found !== null;
}

describe('migrate', () => {
  it('applies each migration once; a second run is a no-op', async () => {
    const schema = server.newSchema();
    expect(await migrate(admin, { schema })).toEqual({
      applied: ['001_job_ledger', '002_speech_governor', '003_job_ledger_updated_day'],
      version: 3,
    });
    expect(await migrate(admin, { schema })).toEqual({ applied: [], version: 3 });
    expect(await versions(schema)).toEqual([1, 2, 3]);
    expect(await tableExists(schema, 'job_ledger')).toBe(true);
  });

  it('replicas starting at once: 4 concurrent migrate() calls succeed and apply each migration once', async () => {
    const schema = server.newSchema();
    const pools = Array.from({ length: 4 }, () => adminPool(server.url));
    try {
      const results = await Promise.all(pools.map((pool) => migrate(pool, { schema })));
      expect(results.flatMap((result) => result.applied)).toEqual([
        '001_job_ledger',
        '002_speech_governor',
        '003_job_ledger_updated_day',
      ]);
      expect(results.map((result) => result.version)).toEqual([3, 3, 3, 3]);
      expect(await versions(schema)).toEqual([1, 2, 3]);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it('replicas starting at once: 4 ledgers migrating on first use all work', async () => {
    const schema = server.newSchema();
    const ledgers = Array.from({ length: 4 }, () =>
      createPostgresJobLedger({ connectionString: server.url, schema }),
    );
    try {
      const inserts = await Promise.all(
        ledgers.map((ledger, index) =>
          ledger.insert({ service: 'meeting', fingerprint: 'fp', id: null, lastStatus: `replica-${index}` }),
        ),
      );
      expect(inserts.filter((result) => result.inserted)).toHaveLength(1);
      expect(await versions(schema)).toEqual([1, 2, 3]);
    } finally {
      await Promise.all(ledgers.map((ledger) => ledger.close()));
    }
  });

  it('a database user without DDL rights runs the store once an operator has migrated', async () => {
    const schema = server.newSchema();
    await migrate(admin, { schema });
    const role = `app_${schema}`;
    await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'app-pw'`);
    await admin.query(`GRANT USAGE ON SCHEMA "${schema}" TO ${role}`);
    await admin.query(`GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA "${schema}" TO ${role}`);
    const ledger = createPostgresJobLedger({
      connectionString: `postgres://${role}:app-pw@127.0.0.1:${server.port}/postgres`,
      schema,
    });
    try {
      const { inserted } = await ledger.insert({
        service: 'meeting',
        fingerprint: 'fp',
        id: 'j',
        lastStatus: 'P',
      });
      expect(inserted).toBe(true);
      // The same user could not have migrated: it may create neither schemas nor tables.
      const rights = await admin.query(
        `SELECT has_database_privilege($1, current_database(), 'CREATE') AS database,
                has_schema_privilege($1, $2, 'CREATE') AS schema`,
        [role, schema],
      );
      expect(rights.rows[0]).toEqual({ database: false, schema: false });
    } finally {
      await ledger.close();
    }
  });

  it('a failing migration leaves the schema as it was', async () => {
    const schema = server.newSchema();
    const shipped = await loadMigrations();
    await migrate(admin, { schema, migrations: shipped });
    const broken = {
      version: 4,
      name: '004_broken',
      sql: 'CREATE TABLE half_done (x integer); ALTER TABLE no_such_table ADD COLUMN y integer;',
    };
    await expect(migrate(admin, { schema, migrations: [...shipped, broken] })).rejects.toThrow(
      /no_such_table/,
    );
    expect(await versions(schema)).toEqual([1, 2, 3]);
    expect(await tableExists(schema, 'half_done')).toBe(false);
  });
});

describe('polymodal-migrate', () => {
  function capture() {
    let text = '';
    return { stderr: { write: (chunk: string) => (text += chunk) }, text: () => text };
  }

  it('migrates, says what it applied and where (password masked), and then that nothing is left', async () => {
    const schema = server.newSchema();
    const env = { POLYMODAL_DATABASE_URL: server.url };
    const first = capture();
    expect(await runMigrateCli({ argv: ['--schema', schema], env, stderr: first.stderr })).toBe(0);
    expect(first.text()).toContain('applied 001_job_ledger');
    expect(first.text()).toContain(
      `postgres://postgres:***@127.0.0.1:${server.port}/postgres (schema ${schema}) is at version 3`,
    );
    const second = capture();
    expect(await runMigrateCli({ argv: [`--schema=${schema}`], env, stderr: second.stderr })).toBe(0);
    expect(second.text()).toContain('nothing to apply');
    expect(first.text() + second.text()).not.toContain(server.password);
  });

  it('exits 2 on a missing or bad URL and on bad arguments, 1 when the database is unreachable', async () => {
    const missing = capture();
    expect(await runMigrateCli({ argv: [], env: {}, stderr: missing.stderr })).toBe(2);
    expect(missing.text()).toContain('POLYMODAL_DATABASE_URL is not set');

    const bad = capture();
    const badUrl = 'https://admin:Sup3rSecret@db.example/app';
    expect(
      await runMigrateCli({ argv: [], env: { POLYMODAL_DATABASE_URL: badUrl }, stderr: bad.stderr }),
    ).toBe(2);
    expect(bad.text()).toContain('must be a PostgreSQL URL');
    expect(bad.text()).not.toContain('Sup3rSecret');

    const unknown = capture();
    expect(await runMigrateCli({ argv: ['--force'], env: {}, stderr: unknown.stderr })).toBe(2);
    expect(await runMigrateCli({ argv: ['--schema', 'x;drop'], env: {}, stderr: unknown.stderr })).toBe(2);

    const help = capture();
    expect(await runMigrateCli({ argv: ['--help'], env: {}, stderr: help.stderr })).toBe(0);
    expect(help.text()).toContain('Usage: polymodal-migrate');

    const down = capture();
    const port = await freePort();
    const url = `postgres://ops:Sup3rSecret@127.0.0.1:${port}/jobs`;
    expect(await runMigrateCli({ argv: [], env: { POLYMODAL_DATABASE_URL: url }, stderr: down.stderr })).toBe(
      1,
    );
    expect(down.text()).toContain(`Could not reach PostgreSQL at postgres://ops:***@127.0.0.1:${port}/jobs`);
    expect(down.text()).not.toContain('Sup3rSecret');
  });

  it('runs as the built bin: exit 0, versions on stderr, nothing on stdout', async () => {
    const bin = fileURLToPath(new URL('../dist/migrate-cli.js', import.meta.url));
    const schema = server.newSchema();
    const child = spawn(process.execPath, [bin, '--schema', schema], {
      env: { ...process.env, POLYMODAL_DATABASE_URL: server.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect({ code, stdout }).toEqual({ code: 0, stdout: '' });
    expect(stderr).toContain('applied 001_job_ledger');
    expect(await versions(schema)).toEqual([1, 2, 3]);
  });
});
