/**
 * @polymodal/store-postgres: the job engine's ledger in PostgreSQL, so that server replicas share jobs,
 * claims and last reads; plus its versioned migrations.
 */
export * from './create-postgres-job-ledger.js';
export * from './create-postgres-speech-governor.js';
export * from './describe-database-url.js';
export {
  DEFAULT_SCHEMA,
  loadMigrations,
  type MigrateOptions,
  type MigrateResult,
  type Migration,
  migrate,
} from './migrate.js';
export { type MigrateCliOptions, runMigrateCli } from './run-migrate-cli.js';
