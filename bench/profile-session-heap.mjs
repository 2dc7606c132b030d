#!/usr/bin/env node
// Profile behind the abandoned-clients figures (not part of `pnpm bench`): what an HTTP client leaves in
// the meeting server once garbage is collected. The server bin runs over Streamable HTTP with
// `--expose-gc` and gc-on-signal.mjs preloaded; after each round of 1,000 clients (initialize, initialized,
// optionally one tools/list, no DELETE) it collects twice and reports heapUsed, heapTotal and RSS. Modes:
// stateless; legacy sessions (cap 1,000) with and without tools/list; then, with a 5 s idle time, after
// the sessions expired. Run: `node profile-session-heap.mjs` (about 2–3 min on 2 cores).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { call, inBatches, initialize, keepAliveAgent } from './http-server-process.mjs';
import { binOf, startSandboxProcess } from './sandbox-process.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROUND = 1_000;
const MODES = [
  { label: 'stateless, tools/list', env: {}, list: true, rounds: 3 },
  {
    label: 'sessions (cap 1,000), initialize only',
    env: { POLYMODAL_HTTP_SESSIONS: '1' },
    list: false,
    rounds: 1,
  },
  { label: 'sessions (cap 1,000), tools/list', env: { POLYMODAL_HTTP_SESSIONS: '1' }, list: true, rounds: 3 },
  {
    label: 'sessions (cap 1,000, idle 5 s), tools/list, 12 s later',
    env: { POLYMODAL_HTTP_SESSIONS: '1', POLYMODAL_HTTP_SESSION_IDLE_SECONDS: '5' },
    list: true,
    rounds: 1,
    quietSeconds: 12,
  },
];

async function profileMode(mode, baseEnv) {
  const child = spawn(
    process.execPath,
    [
      '--expose-gc',
      '--import',
      path.join(here, 'gc-on-signal.mjs'),
      binOf('@polymodal/mcp-meeting', 'polymodal-mcp-meeting'),
      '--http',
      '--port',
      '0',
    ],
    {
      env: { PATH: process.env.PATH ?? '', POLYMODAL_LOG_LEVEL: 'error', ...baseEnv, ...mode.env },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const lines = readline.createInterface({ input: child.stderr });
  let onUrl;
  let onStats;
  const url = new Promise((resolve, reject) => {
    onUrl = resolve;
    child.once('exit', () => reject(new Error('the server exited')));
  });
  lines.on('line', (line) => {
    const match = /endpoint at (http:\/\/\S+)/.exec(line);
    if (match) onUrl(match[1]);
    if (line.startsWith('bench-gc ')) onStats?.(JSON.parse(line.slice(9)));
  });
  const collect = () =>
    new Promise((resolve) => {
      onStats = resolve;
      child.kill('SIGUSR2');
    });
  const agent = keepAliveAgent(50);
  try {
    const endpoint = await url;
    const first = await initialize(endpoint, agent);
    await call(endpoint, agent, 'tools/list', {}, first);
    const samples = [{ clients: 0, ...(await collect()) }];
    for (let round = 1; round <= mode.rounds; round++) {
      await inBatches(ROUND, 50, async () => {
        const sessionId = await initialize(endpoint, agent);
        if (mode.list) await call(endpoint, agent, 'tools/list', {}, sessionId);
      });
      if (round === mode.rounds && mode.quietSeconds) {
        await new Promise((resolve) => setTimeout(resolve, mode.quietSeconds * 1000));
      }
      samples.push({ clients: round * ROUND, ...(await collect()) });
    }
    return { label: mode.label, samples };
  } finally {
    agent.destroy();
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  }
}

const scratch = await mkdtemp(path.join(os.tmpdir(), 'polymodal-bench-heap-'));
const sandbox = await startSandboxProcess();
try {
  const baseEnv = {
    POLYMODAL_BASE_URL: sandbox.baseUrl,
    POLYMODAL_API_KEY: sandbox.env.POLYMODAL_API_KEY,
    POLYMODAL_STATE_DIR: path.join(scratch, 'state'),
  };
  const mib = (bytes) => (bytes / 1024 / 1024).toFixed(1);
  const rows = [];
  for (const mode of MODES) {
    const { label, samples } = await profileMode(mode, baseEnv);
    const [start] = samples;
    for (const sample of samples.slice(1)) {
      const perClientKib = (
        (sample.heapUsed - start.heapUsed) /
        Math.min(sample.clients, 1_000) /
        1024
      ).toFixed(0);
      rows.push(
        `| ${label} | ${sample.clients.toLocaleString('en')} | ${mib(start.heapUsed)} → ${mib(sample.heapUsed)} | ${perClientKib} | ${mib(start.heapTotal)} → ${mib(sample.heapTotal)} | ${mib(start.rss)} → ${mib(sample.rss)} |`,
      );
    }
  }
  process.stdout.write(`| Mode | Clients so far | heapUsed after GC (MiB) | Live heap growth per client (KiB; ÷ min(clients, 1,000), the most a session cap holds) | heapTotal (MiB) | RSS (MiB) |
|---|---:|---:|---:|---:|---:|
${rows.join('\n')}
`);
} finally {
  await sandbox.stop();
  await rm(scratch, { recursive: true, force: true });
}
