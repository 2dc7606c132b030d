#!/usr/bin/env node
/**
 * Gives every server.json (the MCP registry's entry of a server package) the version of its package.json, in
 * both places the registry reads it: the server's `version` and its npm package's `version`. `changeset
 * version` bumps package.json only; `pnpm version-packages` runs this right after it, so a release never
 * publishes a registry entry that points at an older tarball. `--check` changes nothing and exits 1 when a
 * file is out of step (CI and a test use it).
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const check = args.includes('--check');
// --root <dir>: another checkout (tests); default this one.
const rootArg = args.indexOf('--root');
const root =
  rootArg >= 0
    ? path.resolve(args[rootArg + 1])
    : path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

async function serverJsonFiles() {
  const packagesDir = path.join(root, 'packages');
  const found = [];
  for (const name of (await readdir(packagesDir)).sort()) {
    const file = path.join(packagesDir, name, 'server.json');
    const text = await readFile(file, 'utf8').catch((error) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (text !== undefined) found.push({ file, dir: path.join(packagesDir, name), text });
  }
  return found;
}

const stale = [];
for (const { file, dir, text } of await serverJsonFiles()) {
  const pkg = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8'));
  const server = JSON.parse(text);
  const entries = (server.packages ?? []).filter((entry) => entry.identifier === pkg.name);
  if (entries.length === 0) throw new Error(`${path.relative(root, file)} names no npm package ${pkg.name}`);
  if (server.version === pkg.version && entries.every((entry) => entry.version === pkg.version)) continue;
  stale.push(path.relative(root, file));
  if (check) continue;
  server.version = pkg.version;
  for (const entry of entries) entry.version = pkg.version;
  await writeFile(file, `${JSON.stringify(server, null, 2)}\n`);
}
if (check && stale.length > 0) {
  process.stderr.write(`out of step with package.json: ${stale.join(', ')} (run pnpm version-packages)\n`);
  process.exit(1);
}
process.stdout.write(stale.length > 0 ? `updated ${stale.join(', ')}\n` : 'every server.json is in step\n');
