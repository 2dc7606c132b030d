/**
 * `polymodal-migrate`: applies the PostgreSQL store's migrations for operators who migrate before they
 * start replicas (the store also does it at start). Everything it says goes to stderr; the exit code is 0
 * when the schema is up to date, 1 when the database failed, 2 when the command or its URL is wrong.
 */
import { ConfigError, LedgerError } from '@polymodal/core/errors';
import pg from 'pg';
import { DATABASE_URL_VARIABLE, describeDatabaseUrl } from './describe-database-url.js';
import { DEFAULT_SCHEMA, migrate, quoteSchema } from './migrate.js';
import { toLedgerError } from './to-ledger-error.js';

export interface MigrateCliOptions {
  argv: string[];
  env: NodeJS.ProcessEnv;
  /** Where messages go (default: process.stderr). */
  stderr?: { write(text: string): unknown };
}

const USAGE = `Usage: polymodal-migrate [--schema <name>]

Applies the migrations of the Polymodal PostgreSQL store (job ledger) to the database in
${DATABASE_URL_VARIABLE} (postgres://user:password@host:5432/database). Safe to run again and from
several machines at once: each migration is applied exactly once, in one transaction.

Options:
  --schema <name>  schema holding the tables (default ${DEFAULT_SCHEMA}; letters, digits and "_")
  -h, --help       show this help

Exit codes: 0 up to date, 1 the database failed (message says why), 2 wrong usage or URL.
`;

/** Runs the command; resolves with the exit code. */
export async function runMigrateCli(options: MigrateCliOptions): Promise<number> {
  const stderr = options.stderr ?? process.stderr;
  const say = (line: string) => stderr.write(`polymodal-migrate: ${line}\n`);

  let schema = DEFAULT_SCHEMA;
  const args = [...options.argv];
  while (args.length > 0) {
    const arg = args.shift() as string;
    if (arg === '-h' || arg === '--help') {
      stderr.write(USAGE);
      return 0;
    }
    if (arg === '--schema' || arg.startsWith('--schema=')) {
      const value = arg === '--schema' ? args.shift() : arg.slice('--schema='.length);
      if (!value) {
        say('--schema needs a name. See --help.');
        return 2;
      }
      schema = value;
      continue;
    }
    say(`unknown argument ${JSON.stringify(arg)}. See --help.`);
    return 2;
  }
  try {
    quoteSchema(schema);
  } catch (error) {
    say((error as Error).message);
    return 2;
  }

  const connectionString = options.env[DATABASE_URL_VARIABLE]?.trim();
  if (!connectionString) {
    say(`${DATABASE_URL_VARIABLE} is not set: set it to postgres://user:password@host:5432/database.`);
    return 2;
  }
  let described: ReturnType<typeof describeDatabaseUrl>;
  try {
    described = describeDatabaseUrl(connectionString);
  } catch (error) {
    say(ConfigError.isInstance(error) ? error.message : `${DATABASE_URL_VARIABLE} could not be read.`);
    return 2;
  }

  const pool = new pg.Pool({ connectionString, max: 1, connectionTimeoutMillis: 10_000 });
  pool.on('error', () => undefined);
  try {
    const result = await migrate(pool, { schema });
    for (const name of result.applied) say(`applied ${name}`);
    say(
      `${described.location} (schema ${schema}) is at version ${result.version}` +
        (result.applied.length === 0 ? '; nothing to apply.' : '.'),
    );
    return 0;
  } catch (error) {
    const failure = LedgerError.isInstance(error) ? error : toLedgerError(error, described);
    say(failure.message);
    return 1;
  } finally {
    await pool.end().catch(() => undefined);
  }
}
