#!/usr/bin/env node
/**
 * `pnpm smoke`: what a user gets from npm, proved on every Node we support. `pnpm pack` of every published
 * package (prepack builds it), then for the machine's Node, Node 22 and Node 24: `npm install` of all the
 * tarballs into an empty directory with that Node's own npm (so the workspace packages resolve to the
 * tarballs, never to the registry), the sandbox started from the installed `@polymodal/sandbox` bin, and
 * each server bin (and the combined one) started over stdio as a host would, with the MCP SDK 2.x client, in
 * both protocol generations: on 2026-07-28 (pinned) tools/list, `list_jobs`, and a call that reaches the
 * sandbox (for the meeting tools a real `summarize_meeting` of a generated WAV); on 2025-11-25 (the
 * `initialize` handshake) the same tool list and `list_jobs`.
 *
 * Node 22 and 24 come from the npm registry (`node-<platform>-<arch>` with its npm beside it), pinned and
 * kept in a cache directory (POLYMODAL_SMOKE_CACHE, default ~/.cache/polymodal-smoke), so reruns reuse them.
 * POLYMODAL_SMOKE_NODES=machine,22 limits the runs. Every step is bounded; every process is killed on exit.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  connectStdio,
  exerciseServer,
  installPinned,
  log,
  nodeBinIn,
  nodePackageName,
  PUBLISHED_PACKAGES,
  ROOT,
  run,
  seconds,
  startSandboxProcess,
} from './smoke-helpers.mjs';

/**
 * Pinned: the newest 22 and 24 releases when this was written, each with the npm major it ships with
 * (node-<platform>-<arch> packages carry the node binary only).
 */
const PINNED_NODES = {
  22: { node: '22.23.3', npm: '10.9.9' },
  24: { node: '24.21.0', npm: '11.21.2' },
};

const SERVER_BINS = {
  '@polymodal/mcp-meeting': 'polymodal-mcp-meeting',
  '@polymodal/mcp-media': 'polymodal-mcp-media',
  '@polymodal/mcp-speech': 'polymodal-mcp-speech',
  '@polymodal/mcp': 'polymodal-mcp',
};

const CACHE = process.env.POLYMODAL_SMOKE_CACHE || path.join(os.homedir(), '.cache', 'polymodal-smoke');
/** The npm that came with the machine's Node: under lib/ on POSIX, beside node.exe on Windows. */
const MACHINE_NPM_CLI = [
  path.join(path.dirname(path.dirname(process.execPath)), 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'),
  path.join(path.dirname(process.execPath), 'node_modules', 'npm', 'bin', 'npm-cli.js'),
].find((candidate) => existsSync(candidate));

/** A pinned Node and its npm, installed once into the cache with the machine's npm and reused after. */
async function ensureNode(major) {
  const pinned = PINNED_NODES[major];
  const directory = path.join(CACHE, `node-${pinned.node}-npm-${pinned.npm}`);
  const node = nodeBinIn(directory);
  const npmCli = path.join(directory, 'node_modules', 'npm', 'bin', 'npm-cli.js');
  const start = performance.now();
  if (await installPinned(directory, { [nodePackageName()]: pinned.node, npm: pinned.npm })) {
    log(`  fetched Node ${pinned.node} + npm ${pinned.npm} into ${directory} (${seconds(start)} s)`);
  }
  const version = (await run(node, ['--version'], { timeoutMs: 10_000 })).trim();
  if (version !== `v${pinned.node}`) throw new Error(`${node} reports ${version}, expected v${pinned.node}`);
  return { label: `Node ${pinned.node}`, node, npmCli };
}

/** `pnpm pack` of every published package (prepack builds each); checks what a user would miss. */
async function packAll(destination) {
  const tarballs = {};
  for (const directory of PUBLISHED_PACKAGES) {
    const cwd = path.join(ROOT, 'packages', directory);
    const manifest = JSON.parse(await readFile(path.join(cwd, 'package.json'), 'utf8'));
    const before = new Set(await readdir(destination));
    const pack = () => run('pnpm', ['pack', '--pack-destination', destination], { cwd, timeoutMs: 180_000 });
    await pack().catch((error) => {
      // A build running elsewhere in the same checkout (turbo in another terminal) empties a dependency's
      // dist/ while this prepack reads its types; a real failure fails the second time too.
      log(`  pnpm pack of ${manifest.name} failed once, trying again: ${error.message.split('\n')[0]}`);
      return pack();
    });
    const created = (await readdir(destination)).filter((file) => !before.has(file) && file.endsWith('.tgz'));
    if (created.length !== 1) throw new Error(`pnpm pack in ${cwd} left ${created.length} tarballs`);
    tarballs[manifest.name] = path.join(destination, created[0]);
  }
  for (const [name, tarball] of Object.entries(tarballs)) await checkTarball(name, tarball);
  return tarballs;
}

/** LICENSE and README inside, no workspace:/catalog: ranges left, every bin present. */
async function checkTarball(name, tarball) {
  const listing = (await run('tar', ['-tzf', tarball], { timeoutMs: 30_000 }))
    .split('\n')
    .map((line) => line.trim());
  for (const file of ['package/LICENSE', 'package/README.md', 'package/package.json']) {
    if (!listing.includes(file))
      throw new Error(`${name}: ${path.basename(tarball)} has no ${file.slice(8)}`);
  }
  const manifest = JSON.parse(
    await run('tar', ['-xzOf', tarball, 'package/package.json'], { timeoutMs: 30_000 }),
  );
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [dependency, range] of Object.entries(manifest[field] ?? {})) {
      if (/^(workspace|catalog):/.test(range)) {
        throw new Error(`${name}: ${field} ${dependency} is still "${range}" in the tarball`);
      }
    }
  }
  for (const [bin, file] of Object.entries(manifest.bin ?? {})) {
    if (!listing.includes(path.posix.join('package', file)))
      throw new Error(`${name}: bin ${bin} (${file}) is not in the tarball`);
  }
}

/**
 * Every workspace package installed once, from its tarball: a second copy nested under another package
 * would mean a dependency range the tarball cannot satisfy (it came from elsewhere), and two copies of
 * core would split its state.
 */
async function checkSingleCopies(modules, names) {
  for (const name of names) {
    if (!existsSync(path.join(modules, name, 'package.json'))) throw new Error(`npm installed no ${name}`);
    const nested = path.join(modules, name, 'node_modules', '@polymodal');
    if (existsSync(nested)) {
      throw new Error(
        `${name} got its own copy of ${(await readdir(nested)).join(', ')}: a range the tarballs miss`,
      );
    }
  }
}

/** One Node: install every tarball with its npm, start the sandbox, run each bin. */
async function smokeOn(runtime, tarballs, work) {
  const start = performance.now();
  const directory = await mkdtemp(path.join(work, `${runtime.label.replace(/\W+/g, '-')}-`));
  await writeFile(
    path.join(directory, 'package.json'),
    `${JSON.stringify({ name: 'polymodal-smoke', private: true, version: '0.0.0' }, null, 2)}\n`,
  );
  // That Node first on PATH: npm's lifecycle scripts and the bins' `#!/usr/bin/env node` run on it.
  const env = {
    ...process.env,
    PATH: `${path.dirname(runtime.node)}${path.delimiter}${process.env.PATH ?? ''}`,
  };
  await run(
    runtime.node,
    [runtime.npmCli, 'install', '--no-audit', '--no-fund', '--loglevel=error', ...Object.values(tarballs)],
    { cwd: directory, env, timeoutMs: 300_000 },
  );
  const installSeconds = seconds(start);
  const modules = path.join(directory, 'node_modules');
  await checkSingleCopies(modules, Object.keys(tarballs));
  const sandboxCli = path.join(modules, '@polymodal', 'sandbox', 'dist', 'cli.js');
  const sandbox = await startSandboxProcess({ node: runtime.node, cli: sandboxCli, env });
  const results = [];
  try {
    const { writeMeetingRecording } = await import(
      pathToFileURL(path.join(modules, '@polymodal', 'sandbox', 'dist', 'index.js')).href
    );
    const media = path.join(directory, 'media');
    await mkdir(media, { recursive: true });
    const recording = path.join(media, 'standup.wav');
    await writeMeetingRecording(recording, {
      script: [
        { speaker: 'Alice', text: 'We decided to ship the beta on Friday after the final review.' },
        { speaker: 'Bob', text: 'I will prepare the release notes by Thursday.' },
      ],
    });
    for (const [name, bin] of Object.entries(SERVER_BINS)) {
      const label = `${bin} on ${runtime.label}`;
      const binStart = performance.now();
      const command = path.join(modules, '.bin', process.platform === 'win32' ? `${bin}.cmd` : bin);
      if (!existsSync(command)) throw new Error(`${name}: npm installed no ${bin} bin`);
      const connect = (protocol) =>
        connectStdio({
          command,
          label: `${label} (${protocol})`,
          protocol,
          cwd: directory,
          env: {
            PATH: env.PATH,
            ...(process.platform === 'win32' ? { SYSTEMROOT: process.env.SYSTEMROOT ?? '' } : {}),
            POLYMODAL_BASE_URL: sandbox.url,
            POLYMODAL_API_KEY: sandbox.apiKey,
            POLYMODAL_STATE_DIR: path.join(directory, 'state', bin),
            POLYMODAL_ALLOWED_DIRS: media,
            POLYMODAL_OUTPUT_DIR: path.join(directory, 'out', bin),
          },
        });
      // Both protocol generations: the whole exercise on 2026-07-28 (pinned: no fallback to hide a broken
      // server/discover), then the 2025-11-25 handshake with the same tools and one call.
      const modern = await connect('2026-07-28');
      let outcome;
      try {
        outcome = await exerciseServer({ connection: modern, sandbox, label, recording });
      } finally {
        await modern.close();
      }
      const legacy = await connect('legacy');
      try {
        if (legacy.protocolVersion !== '2025-11-25') {
          throw new Error(`${label}: the legacy handshake negotiated ${legacy.protocolVersion}`);
        }
        if (legacy.tools.length !== outcome.tools) {
          throw new Error(
            `${label}: ${legacy.tools.length} tools on 2025-11-25, ${outcome.tools} on 2026-07-28`,
          );
        }
        await legacy.call('list_jobs', {});
      } finally {
        await legacy.close();
      }
      results.push(
        `${bin}: ${outcome.tools} tools; 2026-07-28: list_jobs + ${outcome.reached}; 2025-11-25: list_jobs (${seconds(binStart)} s)`,
      );
    }
  } finally {
    await sandbox.close();
  }
  const nodeVersion = (await run(runtime.node, ['--version'], { timeoutMs: 10_000 })).trim();
  log(`${runtime.label} (${nodeVersion}): npm install ${installSeconds} s, total ${seconds(start)} s`);
  for (const line of results) log(`  ${line}`);
}

async function main() {
  const start = performance.now();
  const wanted = (process.env.POLYMODAL_SMOKE_NODES || 'machine,22,24').split(',').map((item) => item.trim());
  const work = await mkdtemp(path.join(os.tmpdir(), 'polymodal-smoke-'));
  try {
    const tarballs = await packAll(await mkdtemp(path.join(work, 'tarballs-')));
    log(
      `packed ${Object.keys(tarballs).length} packages (LICENSE, README, real versions, bins): ${seconds(start)} s`,
    );
    const runtimes = [];
    for (const item of wanted) {
      if (item === 'machine') {
        if (!MACHINE_NPM_CLI) throw new Error(`no npm beside the machine's Node (${process.execPath})`);
        runtimes.push({
          label: `Node ${process.versions.node} (machine)`,
          node: process.execPath,
          npmCli: MACHINE_NPM_CLI,
        });
      } else if (PINNED_NODES[item]) {
        runtimes.push(await ensureNode(item));
      } else {
        throw new Error(
          `POLYMODAL_SMOKE_NODES: unknown entry ${item} (machine, ${Object.keys(PINNED_NODES).join(', ')})`,
        );
      }
    }
    for (const runtime of runtimes) await smokeOn(runtime, tarballs, work);
    log(`pack smoke passed on ${runtimes.length} Node version(s) in ${seconds(start)} s`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`pack smoke FAILED: ${error.stack ?? error.message ?? error}\n`);
  process.exit(1);
});
