#!/usr/bin/env node
/**
 * `node scripts/container-check.mjs`: the container image (docker/Dockerfile) and the compose file
 * (docker/compose.yaml), proved by running them with podman, as root.
 *
 * 1. The image is built from the packed tarballs on a local base (no registry is reachable in CI): Debian
 *    bookworm from `debootstrap --variant=minbase` with the same pinned Node 22 and npm as `pnpm smoke`
 *    where the official image has them. The base, PostgreSQL's stand-in image and the Node download are
 *    cached (POLYMODAL_CONTAINER_CACHE, default /var/cache/polymodal-ci as root), so a second run builds
 *    only the image itself, and of it only the packages' install onwards (pnpm pack does not write a
 *    manifest's dependencies in a fixed order, so that layer is rarely reused), with npm's download cache
 *    and the layer that installs tini kept.
 * 2. One container against the sandbox on the host, with a tenants file, over Streamable HTTP: the tools
 *    listed, a meeting summarized from a mounted recording, `/metrics` with its token (and refused without),
 *    the user it runs as, the protocol channel (stdout) silent with every log line JSON on stderr, then
 *    SIGTERM during a call held by the sandbox's clock: the call answers with its job handle and the
 *    container exits 0.
 * 3. The compose set (started while step 2 runs): PostgreSQL, the migration, two replicas; the same summary
 *    asked of both replicas at once: the sandbox saw one upload and one job, and both answers name it; the
 *    metrics port is published nowhere, yet answers a scraper inside the back network.
 *
 * Prints the image's size and its start-up time (from `podman run` to the first passing HEALTHCHECK, run
 * with `podman healthcheck run`: without systemd podman cannot schedule it, and says so on stderr).
 * Skipped (exit 0, with a message) only where no container runtime can be had: not root and no podman.
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  BASE_IMAGE,
  connectHttp,
  ensureBaseImage,
  ensurePostgresImage,
  ensureRuntime,
  freePort,
  log,
  PODMAN_ENV,
  podman,
  run,
  seconds,
  startHostSandbox,
  waitFor,
} from './container-helpers.mjs';
import { collect, onExit, ROOT } from './smoke-helpers.mjs';

const IMAGE = 'localhost/polymodal-mcp:check';
const SINGLE = 'polymodal-check-single';
const PROJECT = 'polymodal-check';
const COMPOSE_FILE = path.join(ROOT, 'docker', 'compose.yaml');
const TOKEN = `check-${randomBytes(12).toString('hex')}`;
const METRICS_TOKEN = `metrics-${randomBytes(12).toString('hex')}`;

const sha256 = (text) => createHash('sha256').update(text).digest('hex');
const total = (tallies) => Object.values(tallies ?? {}).reduce((sum, value) => sum + value, 0);

/** Every published server package packed as a user gets it (the sandbox, a test double, stays out). */
async function packTarballs() {
  const start = performance.now();
  const destination = path.join(ROOT, 'docker', 'packages');
  await rm(destination, { recursive: true, force: true });
  await mkdir(destination, { recursive: true });
  await run('pnpm', ['turbo', 'run', 'build', '--output-logs=errors-only'], { timeoutMs: 600_000 });
  // The build above is what prepack would run; skipping it keeps a second build of every package out.
  await run(
    'pnpm',
    [
      '-r',
      '--filter',
      './packages/*',
      '--filter',
      '!@polymodal/sandbox',
      '--config.ignore-scripts=true',
      'pack',
      '--pack-destination',
      destination,
    ],
    { timeoutMs: 180_000 },
  );
  const tarballs = (await readdir(destination)).filter((file) => file.endsWith('.tgz'));
  if (tarballs.length !== 7) throw new Error(`packed ${tarballs.length} tarballs, expected 7: ${tarballs}`);
  return seconds(start);
}

async function buildImage() {
  const start = performance.now();
  // What earlier runs left untagged on our base (the image this build replaces, install stages that
  // another set of tarballs made): removed, so that a machine that runs this often does not fill up.
  const stale = (
    await podman(['images', '-q', '--filter', 'dangling=true', '--filter', `since=${BASE_IMAGE}`])
  )
    .split('\n')
    .filter((id) => id.trim() !== '');
  if (stale.length > 0) await podman(['rmi', '-f', ...new Set(stale)]).catch(() => undefined);
  await podman(
    [
      'build',
      // OCI images have no HEALTHCHECK; podman keeps it only in the docker format.
      '--format',
      'docker',
      '--build-arg',
      `NODE_IMAGE=${BASE_IMAGE}`,
      '-t',
      IMAGE,
      '-f',
      path.join(ROOT, 'docker', 'Dockerfile'),
      path.join(ROOT, 'docker'),
    ],
    { timeoutMs: 600_000 },
  );
  const size = async (image) =>
    Number((await podman(['image', 'inspect', '--format', '{{.Size}}', image])).trim()) / 1e6;
  const [total, base] = await Promise.all([size(IMAGE), size(BASE_IMAGE)]);
  // The entry point chooses the server: a named bin, with the listen flags added as for the default one.
  const manifest = await readFile(path.join(ROOT, 'packages', 'mcp-meeting', 'package.json'), 'utf8');
  const { version } = JSON.parse(manifest);
  const printed = (await podman(['run', '--rm', IMAGE, 'polymodal-mcp-meeting', '--version'])).trim();
  if (!printed.split('\n').includes(version)) {
    throw new Error(`polymodal-mcp-meeting --version in the image printed ${printed}, not ${version}`);
  }
  return { seconds: seconds(start), megabytes: total.toFixed(0), ours: (total - base).toFixed(0) };
}

/** Recordings the sandbox can transcribe (their script is embedded), readable by the image's user. */
async function writeRecordings(directory) {
  const { writeMeetingRecording } = await import(
    pathToFileURL(path.join(ROOT, 'packages', 'sandbox', 'dist', 'index.js')).href
  );
  await mkdir(directory, { recursive: true });
  await chmod(directory, 0o755);
  const scripts = {
    'standup.wav': 'We decided to ship the beta on Friday after the final review.',
    'drain.wav': 'The migration plan goes to the operations team before the weekend.',
    'planning.wav': 'We agreed to move the launch to March and to hire two more engineers.',
  };
  for (const [file, text] of Object.entries(scripts)) {
    await writeMeetingRecording(path.join(directory, file), {
      script: [
        { speaker: 'Alice', text },
        { speaker: 'Bob', text: 'I will write it up by Thursday.' },
      ],
    });
    await chmod(path.join(directory, file), 0o644);
  }
}

async function writeSecret(file, content) {
  await mkdir(path.dirname(file), { recursive: true });
  await chmod(path.dirname(file), 0o755);
  await writeFile(file, content);
  // Bind-mounted as it is: the image's user (uid 10001) must be able to read it.
  await chmod(file, 0o644);
}

// `-v`: the anonymous volumes the image's VOLUME lines gave each container go with it.
function removeContainers() {
  spawnSync('podman', ['rm', '-f', '-v', '-t', '0', SINGLE], { env: PODMAN_ENV, stdio: 'ignore' });
}

/**
 * The compose set's containers (killed: nothing is left to drain) with their anonymous volumes, then its
 * named volumes and networks: what `podman-compose down -v` does, without its pause after each command.
 */
function composeDown(env) {
  const containers = ['mcp-1', 'mcp-2', 'migrate', 'postgres'].map((service) => `${PROJECT}_${service}_1`);
  const volumes = ['pgdata', 'state-1', 'state-2', 'outputs'].map((volume) => `${PROJECT}_${volume}`);
  spawnSync('podman', ['rm', '-f', '-v', '-t', '0', ...containers], { env, stdio: 'ignore' });
  spawnSync('podman', ['volume', 'rm', '-f', ...volumes], { env, stdio: 'ignore' });
  spawnSync('podman', ['network', 'rm', '-f', `${PROJECT}_front`, `${PROJECT}_back`], {
    env,
    stdio: 'ignore',
  });
}

/** Step 2: one container, the sandbox on the host, a tenants file; ends with SIGTERM during a call. */
async function checkOneContainer({ work, sandbox, recordings }) {
  const port = await freePort();
  const tenants = path.join(work, 'single', 'tenants.json');
  await writeSecret(
    tenants,
    JSON.stringify({ tenants: [{ id: 'team-a', tokenSha256: sha256(TOKEN), apiKey: sandbox.keys[0] }] }),
  );
  const started = performance.now();
  await podman([
    'run',
    '-d',
    '--name',
    SINGLE,
    // A read-only root (podman mounts tmpfs on /tmp and /run): only the two volumes are written.
    '--read-only',
    '-p',
    `127.0.0.1:${port}:3000`,
    '-v',
    `${tenants}:/run/secrets/tenants:ro`,
    '-v',
    `${recordings}:/srv/recordings:ro`,
    '-e',
    'POLYMODAL_TENANTS_FILE=/run/secrets/tenants',
    '-e',
    `POLYMODAL_BASE_URL=${sandbox.containerUrl}`,
    '-e',
    'POLYMODAL_ALLOWED_DIRS=/srv/recordings',
    '-e',
    `POLYMODAL_METRICS_TOKEN=${METRICS_TOKEN}`,
    IMAGE,
  ]);
  // The image's own HEALTHCHECK, run as the engine runs it, until it first passes.
  await waitFor(
    async () =>
      (await collect('podman', ['healthcheck', 'run', SINGLE], { env: PODMAN_ENV, timeoutMs: 10_000 }))
        .code === 0,
    { timeoutMs: 60_000, everyMs: 50, label: 'the container becoming healthy' },
  );
  const startup = seconds(started);
  const user = (await podman(['exec', SINGLE, 'id', '-u'])).trim();
  if (user !== '10001') throw new Error(`the server runs as uid ${user}, not 10001`);

  const url = `http://127.0.0.1:${port}/mcp`;
  const client = await connectHttp(url, TOKEN, 'container');
  const results = {};
  try {
    const names = (await client.tools()).map((tool) => tool.name);
    for (const name of ['summarize_meeting', 'list_jobs', 'synthesize_speech']) {
      if (!names.includes(name)) throw new Error(`tools/list has no ${name}: ${names.join(', ')}`);
    }
    results.tools = names.length;
    const before = await sandbox.counters();
    const summary = await client.call(
      'summarize_meeting',
      { path: '/srv/recordings/standup.wav', waitSeconds: 40 },
      60_000,
    );
    if (summary.structuredContent?.status !== 'COMPLETED') {
      throw new Error(`summarize_meeting ended ${summary.structuredContent?.status}, not COMPLETED`);
    }
    const after = await sandbox.counters();
    if (total(after.uploads) - total(before.uploads) !== 1) throw new Error('the sandbox saw no upload');

    const metricsUrl = `http://127.0.0.1:${port}/metrics`;
    const refused = await fetch(metricsUrl);
    await refused.body?.cancel();
    if (refused.status !== 401) throw new Error(`/metrics without the token answered ${refused.status}`);
    const metrics = await fetch(metricsUrl, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    const text = await metrics.text();
    if (!/polymodal_tool_calls_total\{tool="summarize_meeting",outcome="ok"\} 1\b/.test(text)) {
      throw new Error(`/metrics (${metrics.status}) does not count the summary:\n${text.slice(0, 600)}`);
    }

    // SIGTERM while a call waits on a job the held clock keeps running: the drain answers it.
    await sandbox.holdClock();
    const jobsBefore = total((await sandbox.counters()).jobsCreated);
    const pending = client.call(
      'summarize_meeting',
      { path: '/srv/recordings/drain.wav', waitSeconds: 40 },
      60_000,
    );
    await waitFor(async () => total((await sandbox.counters()).jobsCreated) > jobsBefore, {
      timeoutMs: 20_000,
      label: 'the held job reaching the sandbox',
    });
    const signalled = performance.now();
    await podman(['kill', '--signal', 'TERM', SINGLE]);
    const drained = await pending;
    const answered = seconds(signalled);
    const handle = drained.structuredContent;
    if (handle?.done !== false || typeof handle.jobId !== 'string' || !handle.next) {
      throw new Error(`the drained call answered without its handle: ${JSON.stringify(handle)}`);
    }
    const exitCode = (await podman(['wait', SINGLE], { timeoutMs: 30_000 })).trim();
    if (exitCode !== '0') throw new Error(`the container exited ${exitCode} after SIGTERM, not 0`);
    results.drain = `answered ${answered} s after SIGTERM with job ${handle.jobId} (done: false), exit 0 after ${seconds(signalled)} s`;
    await sandbox.releaseClock();
  } finally {
    await client.close();
  }

  // stdout is the protocol channel over stdio only; over HTTP every line goes to stderr, as JSON.
  const logs = await collect('podman', ['logs', SINGLE], { env: PODMAN_ENV });
  if (logs.stdout.trim() !== '') throw new Error(`the server wrote on stdout:\n${logs.stdout.slice(0, 600)}`);
  const lines = logs.stderr.split('\n').filter((line) => line.trim() !== '');
  for (const line of lines) {
    let record;
    try {
      record = JSON.parse(line);
    } catch {
      throw new Error(`a stderr line is not JSON: ${line}`);
    }
    if (typeof record.msg !== 'string') throw new Error(`a log record has no msg: ${line}`);
  }
  for (const secret of [TOKEN, METRICS_TOKEN, sandbox.keys[0]]) {
    if (logs.stderr.includes(secret)) throw new Error('a token or key appeared in the log');
  }
  if (
    !lines.some((line) =>
      /endpoint at http:\/\/localhost:3000\/mcp \(listening on every interface/.test(line),
    )
  ) {
    throw new Error(
      `no start-up line for every interface, port 3000, in the log:\n${logs.stderr.slice(0, 600)}`,
    );
  }
  results.logLines = lines.length;
  results.startup = startup;
  return results;
}

/**
 * Step 3, first half: PostgreSQL, the one-shot migration, then the replicas. podman-compose 1.0 does not
 * wait for `service_completed_successfully`, so the migration is run to its end first (as docs/deploy.md
 * tells its users), then `up` starts the rest.
 */
async function startCompose({ work, sandbox, recordings }) {
  const start = performance.now();
  const config = path.join(work, 'compose');
  const password = randomBytes(12).toString('hex');
  await writeSecret(
    path.join(config, 'secrets', 'tenants.json'),
    JSON.stringify({ tenants: [{ id: 'team-b', tokenSha256: sha256(TOKEN) }] }),
  );
  await writeSecret(path.join(config, 'secrets', 'postgres_password'), password);
  await writeSecret(
    path.join(config, 'secrets', 'database_url'),
    `postgres://polymodal:${password}@postgres:5432/polymodal`,
  );
  await writeSecret(
    path.join(config, 'polymodal.env'),
    `POLYMODAL_BASE_URL=${sandbox.containerUrl}\nPOLYMODAL_API_KEY=${sandbox.keys[1]}\nPOLYMODAL_METRICS_TOKEN=${METRICS_TOKEN}\n`,
  );
  const ports = [await freePort(), await freePort()];
  const env = {
    ...PODMAN_ENV,
    POLYMODAL_IMAGE: IMAGE,
    POSTGRES_IMAGE: sandbox.postgresImage,
    POLYMODAL_CONFIG_DIR: config,
    POLYMODAL_RECORDINGS_DIR: recordings,
    POLYMODAL_MCP_1_PORT: String(ports[0]),
    POLYMODAL_MCP_2_PORT: String(ports[1]),
  };
  onExit(() => composeDown(env));
  const compose = (args) =>
    run('podman-compose', ['-f', COMPOSE_FILE, '-p', PROJECT, ...args], { env, timeoutMs: 180_000 });
  await compose(['up', '-d', 'migrate']);
  const migrated = (await podman(['wait', `${PROJECT}_migrate_1`], { timeoutMs: 90_000 })).trim();
  const migrateLog = (await collect('podman', ['logs', `${PROJECT}_migrate_1`], { env: PODMAN_ENV })).output;
  if (migrated !== '0') throw new Error(`polymodal-migrate exited ${migrated}:\n${migrateLog.slice(-1500)}`);
  if (!/is at version \d+/.test(migrateLog)) throw new Error(`polymodal-migrate said:\n${migrateLog}`);
  await compose(['up', '-d', 'mcp-1', 'mcp-2']);
  for (const port of ports) {
    await waitFor(
      async () => {
        const response = await fetch(`http://127.0.0.1:${port}/readyz`);
        await response.body?.cancel();
        return response.ok;
      },
      { timeoutMs: 60_000, label: `replica on ${port} ready` },
    );
  }
  return { ports, env, seconds: seconds(start) };
}

/** Step 3, second half: one job for two replicas, and metrics on the back network only. */
async function checkReplicas({ sandbox, compose }) {
  const clients = await Promise.all(
    compose.ports.map((port, index) =>
      connectHttp(`http://127.0.0.1:${port}/mcp`, TOKEN, `replica ${index + 1}`),
    ),
  );
  try {
    const before = await sandbox.counters();
    const answers = await Promise.all(
      clients.map((client) =>
        client.call('summarize_meeting', { path: '/srv/recordings/planning.wav', waitSeconds: 40 }, 60_000),
      ),
    );
    const after = await sandbox.counters();
    const jobIds = answers.map((answer) => answer.structuredContent?.jobId);
    const statuses = answers.map((answer) => answer.structuredContent?.status);
    if (statuses.some((status) => status !== 'COMPLETED')) throw new Error(`replicas answered ${statuses}`);
    if (jobIds[0] !== jobIds[1]) throw new Error(`the replicas answered different jobs: ${jobIds}`);
    const uploads = total(after.uploads) - total(before.uploads);
    const jobs = total(after.jobsCreated) - total(before.jobsCreated);
    if (uploads !== 1 || jobs !== 1) {
      throw new Error(
        `two replicas, one summary: the sandbox saw ${uploads} uploads and ${jobs} jobs, not 1 and 1`,
      );
    }
  } finally {
    await Promise.all(clients.map((client) => client.close()));
  }
  const published = await podman(['port', `${PROJECT}_mcp-1_1`]);
  if (published.includes('9464')) throw new Error(`the metrics port is published: ${published}`);
  const scrape = await podman([
    'exec',
    `${PROJECT}_mcp-1_1`,
    'node',
    '-e',
    `fetch('http://mcp-2:9464/metrics', { headers: { authorization: 'Bearer ${METRICS_TOKEN}' } })` +
      `.then(async (r) => { const t = await r.text(); process.stdout.write(r.status + ' ' + /polymodal_jobs_total/.test(t)); })`,
  ]);
  if (scrape.trim() !== '200 true') throw new Error(`replica 2's metrics, from the back network: ${scrape}`);
  return 'one upload, one job, the same job id from both; metrics on the back network only';
}

const started = performance.now();

/** A progress line with the seconds since the check started, so a slow step shows in CI's log. */
function step(message) {
  log(`[${seconds(started)} s] ${message}`);
}

async function main() {
  if (!(await ensureRuntime())) return;
  const work = await mkdtemp(path.join(os.tmpdir(), 'polymodal-container-'));
  await chmod(work, 0o755);
  onExit(() => {
    removeContainers();
    rmSync(work, { recursive: true, force: true });
  });
  removeContainers();
  const recordings = path.join(work, 'recordings');
  const [base, packed, sandbox] = await Promise.all([
    ensureBaseImage(),
    packTarballs(),
    startHostSandbox(),
    writeRecordings(recordings),
  ]);
  step(`base ${BASE_IMAGE}: ${base}; packed 7 tarballs (${packed} s)`);
  const [image, postgres] = await Promise.all([buildImage(), ensurePostgresImage()]);
  sandbox.postgresImage = postgres.image;
  step(
    `image ${IMAGE}: built in ${image.seconds} s, ${image.megabytes} MB (${image.ours} MB over the base); ` +
      `polymodal-mcp-meeting selectable; ${postgres.image}: ${postgres.how}`,
  );

  // The compose set starts while the single container is checked; its calls wait for the clock's release.
  const composeStarted = startCompose({ work, sandbox, recordings });
  composeStarted.catch(() => undefined);
  const single = await checkOneContainer({ work, sandbox, recordings });
  step(
    `one container: healthy ${single.startup} s after podman run; ${single.tools} tools; summary COMPLETED; ` +
      `/metrics 401 without its token, counted with it; uid 10001; stdout silent, ${single.logLines} JSON lines on stderr`,
  );
  step(`  SIGTERM during a call: ${single.drain}`);
  const compose = await composeStarted;
  step(`compose: PostgreSQL, migration, two replicas ready in ${compose.seconds} s`);
  step(`  ${await checkReplicas({ sandbox, compose })}`);
  composeDown(compose.env);
  await sandbox.close();
  step('compose set removed');
  step(
    `image size: ${image.megabytes} MB (${image.ours} MB over the base); ` +
      `start-up (podman run to healthy): ${single.startup} s`,
  );
  step('container check passed');
}

main().catch((error) => {
  process.stderr.write(`container check FAILED: ${error.stack ?? error.message ?? error}\n`);
  process.exit(1);
});
