/**
 * One PostgreSQL pool per database per process, shared by every server context on it. A server with a
 * tenants file builds a context per tenant; a pool each would multiply the connections a replica holds
 * by the number of tenants and exhaust the database's `max_connections`. The pool (and `pg`) is created on
 * first use and ended when the last context using it closes.
 */
import type { createPostgresPool } from '@polymodal/store-postgres';

export type PostgresPool = ReturnType<typeof createPostgresPool>;

export interface SharedPostgresPool {
  /** The process's pool for this database, created (and `pg` loaded) on the first call. */
  pool(): Promise<PostgresPool>;
  /** This context no longer uses the pool; the last release ends it. Calling it twice releases once. */
  release(): Promise<void>;
}

interface Shared {
  users: number;
  pool?: Promise<PostgresPool>;
}

const shared = new Map<string, Shared>();

export function acquireSharedPostgresPool(connectionString: string): SharedPostgresPool {
  let entry = shared.get(connectionString);
  if (!entry) {
    entry = { users: 0 };
    shared.set(connectionString, entry);
  }
  entry.users += 1;
  const mine = entry;
  let released = false;
  return {
    pool() {
      if (released) return Promise.reject(new Error('the shared PostgreSQL pool was released'));
      mine.pool ??= import('@polymodal/store-postgres')
        .then(({ createPostgresPool }) => createPostgresPool({ connectionString }))
        .catch((error: unknown) => {
          // A driver that could not load is tried again on the next call.
          mine.pool = undefined;
          throw error;
        });
      return mine.pool;
    },
    async release() {
      if (released) return;
      released = true;
      mine.users -= 1;
      if (mine.users > 0) return;
      if (shared.get(connectionString) === mine) shared.delete(connectionString);
      const pool = await mine.pool?.catch(() => undefined);
      await pool?.end();
    },
  };
}
