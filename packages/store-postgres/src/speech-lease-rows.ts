/**
 * The speech governor's rows for one platform key: a key row (its learned limit, and the lock that
 * serialises every replica's count-then-insert) and one lease row per slot taken, which expires unless
 * renewed. The key is stored as its sha256, never itself. SQL only: when to take, renew or give back a
 * lease is the governor's (create-postgres-speech-governor.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { migrate, quoteSchema } from './migrate.js';

export interface SpeechLeaseRowsOptions {
  pool: pg.Pool;
  schema: string;
  apiKey: string;
  /** How long a lease lives without renewal. */
  leaseMs: number;
  /** Apply pending migrations on first use. */
  migrate: boolean;
  /** The limit a lease is taken under, given the key's learned one (undefined while none is). */
  limitOf(learned: number | undefined): number;
}

export class SpeechLeaseRows {
  /** The key's limit learned from a 429, as this process last read or stored it. */
  learned: number | undefined;
  readonly #options: SpeechLeaseRowsOptions;
  readonly #keys: string;
  readonly #leases: string;
  readonly #keySha256: string;
  readonly #holder: string;
  #prepared: Promise<void> | undefined;

  constructor(options: SpeechLeaseRowsOptions, holder: string) {
    this.#options = options;
    this.#keys = `${quoteSchema(options.schema)}.speech_governor_keys`;
    this.#leases = `${quoteSchema(options.schema)}.speech_governor_leases`;
    this.#keySha256 = createHash('sha256').update(options.apiKey).digest('hex');
    this.#holder = holder;
  }

  /** Applies the migrations once (again after a failure). */
  prepare(): Promise<void> {
    const { pool, schema } = this.#options;
    this.#prepared ??= (async () => {
      if (this.#options.migrate) await migrate(pool, { schema });
    })().catch((error: unknown) => {
      this.#prepared = undefined;
      throw error;
    });
    return this.#prepared;
  }

  /**
   * One transaction: drops the key's expired leases and the ones in `unreleased` (given back while the
   * database did not answer; removed from it once deleted), counts the live ones and inserts a lease only
   * below the limit. A lease id when a slot was free, undefined when the key is full.
   */
  async tryTake(unreleased: Set<string>): Promise<string | undefined> {
    await this.prepare();
    const givenBack = [...unreleased];
    const forget = () => {
      for (const leaseId of givenBack) unreleased.delete(leaseId);
    };
    const keys = this.#keys;
    const leases = this.#leases;
    const keySha256 = this.#keySha256;
    const client = await this.#options.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`INSERT INTO ${keys} (key_sha256) VALUES ($1) ON CONFLICT DO NOTHING`, [keySha256]);
      // The key's row lock serialises every replica's count-then-insert on this key.
      const row = await client.query<{ learned_limit: number | null }>(
        `SELECT learned_limit FROM ${keys} WHERE key_sha256 = $1 FOR UPDATE`,
        [keySha256],
      );
      this.learned = row.rows[0]?.learned_limit ?? this.learned;
      const limit = this.#options.limitOf(this.learned);
      await client.query(`DELETE FROM ${leases} WHERE key_sha256 = $1 AND expires_at <= now()`, [keySha256]);
      if (givenBack.length > 0) {
        await client.query(`DELETE FROM ${leases} WHERE lease_id = ANY($1::text[])`, [givenBack]);
      }
      const live = await client.query<{ count: string }>(
        `SELECT count(*) FROM ${leases} WHERE key_sha256 = $1`,
        [keySha256],
      );
      if (Number(live.rows[0]?.count ?? 0) >= limit) {
        await client.query('COMMIT');
        forget();
        return undefined;
      }
      const leaseId = randomUUID();
      await client.query(
        `INSERT INTO ${leases} (lease_id, key_sha256, holder, expires_at)
         VALUES ($1, $2, $3, now() + make_interval(secs => $4::double precision / 1000))`,
        [leaseId, keySha256, this.#holder, this.#options.leaseMs],
      );
      await client.query('COMMIT');
      forget();
      return leaseId;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** Deletes leases (given back, or held at close). */
  async delete(leaseIds: string[]): Promise<void> {
    await this.#options.pool.query(`DELETE FROM ${this.#leases} WHERE lease_id = ANY($1::text[])`, [
      leaseIds,
    ]);
  }

  /** Deletes one lease given back. */
  async deleteOne(leaseId: string): Promise<void> {
    await this.#options.pool.query(`DELETE FROM ${this.#leases} WHERE lease_id = $1`, [leaseId]);
  }

  /** Pushes the expiry of held leases one lease further. */
  async renew(leaseIds: string[]): Promise<void> {
    await this.#options.pool.query(
      `UPDATE ${this.#leases} SET expires_at = now() + make_interval(secs => $2::double precision / 1000)
           WHERE lease_id = ANY($1::text[])`,
      [leaseIds, this.#options.leaseMs],
    );
  }

  /** Stores the limit a 429 taught, for every replica to use. */
  async storeLearned(concurrentLimit: number): Promise<void> {
    this.learned = concurrentLimit;
    await this.prepare();
    await this.#options.pool.query(
      `INSERT INTO ${this.#keys} (key_sha256, learned_limit) VALUES ($1, $2)
             ON CONFLICT (key_sha256) DO UPDATE SET learned_limit = EXCLUDED.learned_limit, updated_at = now()`,
      [this.#keySha256, concurrentLimit],
    );
  }
}
