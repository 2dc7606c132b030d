import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ConfigError, LedgerError } from '@polymodal/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPlatformContext } from './create-platform-context.js';

const KEY = 'pm_live_contextSecret42';

describe('createPlatformContext', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'context-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('builds the client, files and ledger from the environment and lists the key as a secret', async () => {
    const context = createPlatformContext({
      env: {
        POLYMODAL_BASE_URL: 'http://127.0.0.1:9/',
        POLYMODAL_API_KEY: KEY,
        POLYMODAL_STATE_DIR: path.join(dir, 'state'),
        POLYMODAL_ALLOWED_DIRS: dir,
        POLYMODAL_OUTPUT_DIR: path.join(dir, 'out'),
      },
    });
    try {
      expect(context.secrets).toContain(KEY);
      // The platform client is built on first use: tool calls load it, reading it before says so.
      expect(() => context.client).toThrow(/loadClient/);
      expect(await context.loadClient()).toBe(await context.loadClient());
      expect(context.client.config.baseUrl).toBe('http://127.0.0.1:9');
      expect(context.files.outputDir).toBe(path.join(dir, 'out'));
      expect(context.ledger.location.startsWith(path.join(dir, 'state'))).toBe(true);
      expect(JSON.stringify(context.client)).not.toContain(KEY);
    } finally {
      await context.close();
    }
  });

  it('throws a ConfigError naming the variable, never its value', () => {
    let caught: unknown;
    try {
      createPlatformContext({
        env: { POLYMODAL_BASE_URL: 'http://127.0.0.1:9', POLYMODAL_API_KEY: `${KEY}\r\nX: y` },
      });
    } catch (error) {
      caught = error;
    }
    expect(ConfigError.isInstance(caught)).toBe(true);
    expect((caught as Error).message).toContain('POLYMODAL_API_KEY');
    expect((caught as Error).message).not.toContain(KEY);
    expect(() => createPlatformContext({ env: { POLYMODAL_API_KEY: KEY } })).toThrow(/POLYMODAL_BASE_URL/);
  });

  it('refuses a speech lease that is not a whole number of seconds, naming the variable', () => {
    for (const lease of ['0', '1.5', 'soon']) {
      expect(() =>
        createPlatformContext({
          env: {
            POLYMODAL_BASE_URL: 'http://127.0.0.1:9',
            POLYMODAL_API_KEY: KEY,
            POLYMODAL_STATE_DIR: path.join(dir, 'state'),
            POLYMODAL_SPEECH_LEASE_SECONDS: lease,
          },
        }),
      ).toThrow(/POLYMODAL_SPEECH_LEASE_SECONDS must be a whole number/);
    }
  });

  describe('with POLYMODAL_DATABASE_URL', () => {
    const password = 'db-Pa55word-9';

    /** A port nothing listens on: the database is down. */
    async function closedPort(): Promise<number> {
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const address = server.address();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      return typeof address === 'object' && address ? address.port : 9;
    }

    it('keeps the job ledger in PostgreSQL, shown without the password, and refuses work while it is down', async () => {
      const port = await closedPort();
      const context = createPlatformContext({
        env: {
          POLYMODAL_BASE_URL: 'http://127.0.0.1:9/',
          POLYMODAL_API_KEY: KEY,
          POLYMODAL_STATE_DIR: path.join(dir, 'state'),
          POLYMODAL_DATABASE_URL: `postgres://polymodal:${password}@127.0.0.1:${port}/jobs`,
        },
      });
      try {
        expect(context.ledger.location).toBe(`postgres://polymodal:***@127.0.0.1:${port}/jobs`);
        expect(context.secrets).toContain(password);
        const error = await context.ledger
          .findByFingerprint('meeting', 'fp')
          .catch((caught: unknown) => caught);
        expect(LedgerError.isInstance(error)).toBe(true);
        expect((error as Error).message).toContain(
          `Could not reach PostgreSQL at postgres://polymodal:***@127.0.0.1:${port}/jobs`,
        );
        expect((error as Error).message).not.toContain(password);
      } finally {
        await context.close();
      }
    });

    it('stops at start on a URL that is not PostgreSQL, or serving tenants without saying which one', () => {
      const base = { POLYMODAL_BASE_URL: 'http://127.0.0.1:9', POLYMODAL_API_KEY: KEY };
      let caught: unknown;
      try {
        createPlatformContext({
          env: { ...base, POLYMODAL_DATABASE_URL: `mysql://root:${password}@db/app` },
        });
      } catch (error) {
        caught = error;
      }
      expect(ConfigError.isInstance(caught)).toBe(true);
      expect((caught as ConfigError).variable).toBe('POLYMODAL_DATABASE_URL');
      expect((caught as Error).message).not.toContain(password);
      expect(() =>
        createPlatformContext({
          env: {
            ...base,
            POLYMODAL_DATABASE_URL: 'postgres://db/jobs',
            POLYMODAL_TENANTS_FILE: path.join(dir, 'tenants.json'),
          },
        }),
      ).toThrow(/POLYMODAL_TENANTS_FILE: this server context was built without a tenant/);
    });

    it('does not load the PostgreSQL driver until the ledger is first used (servers start fast)', async () => {
      // A process of its own, because this one may have loaded pg already; it imports the built package.
      const built = fileURLToPath(new URL('../../dist/host.js', import.meta.url));
      const script = `
        import { createRequire } from 'node:module';
        const require = createRequire(import.meta.url);
        const { createPlatformContext } = await import(${JSON.stringify(built)});
        const pgLoaded = () => Object.keys(require.cache).some((file) => /[\\/]pg[\\/]lib[\\/]/.test(file));
        const context = createPlatformContext({ env: {
          POLYMODAL_BASE_URL: 'http://127.0.0.1:9', POLYMODAL_API_KEY: 'key',
          POLYMODAL_DATABASE_URL: 'postgres://app:pw@127.0.0.1:${await closedPort()}/jobs',
        } });
        const atStart = pgLoaded();
        await context.ledger.list().catch(() => undefined);
        console.log(JSON.stringify({ atStart, afterUse: pgLoaded() }));
        await context.close();
      `;
      const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
      expect(JSON.parse(stdout)).toEqual({ atStart: false, afterUse: true });
    });
  });
});
