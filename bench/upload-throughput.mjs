// Upload speed, CPU and memory beside curl (issue 14), imported by run.mjs's upload section: the same
// recording to the same sandbox route (`POST /api/conference-summary/v1/uploads`, Bearer key), in one run,
//  (a) `curl -F file=@<wav>` under /usr/bin/time (its wall time, user+sys CPU and peak RSS);
//  (b) the Node floor (upload-floor.mjs): a Node child sending the same form over a plain `node:net` socket,
//      the file read synchronously into one reused 2 MiB buffer (what no Node client can undercut);
//  (c) @polymodal/core's `meeting.upload` in a child process (upload-rss.mjs: wall, CPU, peak RSS);
//  (d) the real path: the built meeting MCP server over stdio, one `summarize_meeting` with waitSeconds 0
//      after one `list_jobs` (the first tool call of a process loads the platform clients; timed apart)
//      (the call ends once the upload is done and the job is created), the server process's peak RSS from
//      /proc/<pid>/status VmHWM and its CPU from /proc/<pid>/stat utime+stime, before the call and 1.5 s after
//      its answer (background work the call set off is counted).
//      The sandbox's request log (arrival times, same clock) splits the call's wall time: before the upload
//      request arrives; from its arrival to the job creation's (the bytes sent and the upload answered, as
//      in curl's run); after (job creation and its first status).
// Only the client processes' CPU is counted: the sandbox's (busboy, hashing, disk) is the same for all.
// With `pin`, the same rounds run with the sandbox on CPU 0 and each client on CPU 1 (taskset): the sandbox
// stands in for a platform on other machines, and on 2 cores a client otherwise competes with it for the
// receiver's CPU (the sandbox is the bottleneck: it parses, hashes and stores what it receives).
// The four alternate round by round (order rotated) so that noise from other work on the machine hits
// them alike, and the median of each measure is reported; the ratios to curl are the median of each round's
// own ratio (curl's run and the other in the same round), which follows drift of the machine less than a
// ratio of medians. After every upload the sandbox is reset, so the
// stored file is removed and the created job does not keep the sandbox busy during the next measurement.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { peakMib, processCpuSeconds, residentMib } from './proc-stats.mjs';
import { binOf } from './sandbox-process.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROUTE = '/api/conference-summary/v1/uploads';
const ROUNDS = Math.max(1, Math.min(10, Number(process.env.BENCH_UPLOAD_ROUNDS ?? 3)));
/** How long the server idles after its answer before its CPU and peak RSS are read. */
const SETTLE_MS = 1500;
/** Bound of one measured upload (500 MB on loopback takes seconds). */
const UPLOAD_LIMIT_MS = 120_000;

/** Pinning needs two CPUs and util-linux's taskset. */
export const CAN_PIN =
  os.availableParallelism() >= 2 && spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0;
/** The command and arguments that run `command args` on CPU 1 when pinned. */
const onClientCpu = (pin, command, args) =>
  pin ? ['taskset', ['-c', '1', command, ...args]] : [command, args];

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

/** Resolves with the child's exit code, or rejects (after killing it) past `limitMs`. */
function exitOf(child, label, limitMs = UPLOAD_LIMIT_MS) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${label} took over ${limitMs} ms`));
    }, limitMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/** (a) curl -F, timed by GNU time; the key goes through curl's config on stdin, not the command line. */
async function runCurl({ baseUrl, apiKey, file, scratch, pin }) {
  const timeFile = path.join(scratch, 'curl-time.txt');
  const child = spawn(
    ...onClientCpu(pin, '/usr/bin/time', [
      '-o',
      timeFile,
      '-f',
      '%e %U %S %M',
      'curl',
      '--silent',
      '--show-error',
      '--fail',
      '--output',
      '/dev/null',
      '--config',
      '-',
      '--form',
      `file=@${file};type=audio/wav`,
      `${baseUrl}${ROUTE}`,
    ]),
    { stdio: ['pipe', 'ignore', 'inherit'] },
  );
  child.stdin.end(`header = "Authorization: Bearer ${apiKey}"\n`);
  const code = await exitOf(child, 'curl');
  if (code !== 0) throw new Error(`curl exited ${code}`);
  // GNU time may print a line about the exit status first; the figures are the last line.
  const line = (await readFile(timeFile, 'utf8')).trim().split('\n').at(-1);
  const [seconds, user, system, maxRssKb] = line.split(' ').map(Number);
  return { seconds, cpuSeconds: user + system, peakMiB: maxRssKb / 1024 };
}

/**
 * A Node child that uploads once and prints its own figures as one JSON line (upload-rss.mjs and
 * upload-floor.mjs: uploadSeconds, cpuSeconds, peakMb, baselineMb), the key in its environment.
 */
async function runUploaderChild({ apiKey, pin }, script, args, label) {
  const child = spawn(...onClientCpu(pin, process.execPath, [path.join(here, script), ...args]), {
    env: { ...process.env, POLYMODAL_API_KEY: apiKey },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
  });
  const code = await exitOf(child, label);
  if (code !== 0) throw new Error(`${script} exited ${code}`);
  const run = JSON.parse(out.trim());
  return {
    seconds: run.uploadSeconds,
    cpuSeconds: run.cpuSeconds,
    peakMiB: run.peakMb,
    baseMiB: run.baselineMb,
  };
}

/** (b) the Node floor: the same form over a plain socket (upload-floor.mjs). */
const runFloor = (options) =>
  runUploaderChild(options, 'upload-floor.mjs', [options.baseUrl, options.file], 'Node floor upload');

/** (c) core's meeting.upload (upload-rss.mjs). */
const runCore = (options) =>
  runUploaderChild(options, 'upload-rss.mjs', ['stream', options.baseUrl, options.file], 'core upload');

/** (d) the meeting MCP server over stdio: a fresh process (and state dir) per round, as a host starts it. */
async function runMcp({ baseUrl, apiKey, file, scratch, round, control, pin }) {
  const stateDir = path.join(scratch, `upload-state-${round}${pin ? '-pinned' : ''}`);
  await mkdir(stateDir, { recursive: true });
  // taskset execs the server: the transport's pid is the server's.
  const [command, args] = onClientCpu(pin, process.execPath, [
    binOf('@polymodal/mcp-meeting', 'polymodal-mcp-meeting'),
  ]);
  const transport = new StdioClientTransport({
    command,
    args,
    env: {
      PATH: process.env.PATH ?? '',
      POLYMODAL_BASE_URL: baseUrl,
      POLYMODAL_API_KEY: apiKey,
      POLYMODAL_ALLOWED_DIRS: path.dirname(file),
      POLYMODAL_OUTPUT_DIR: path.join(stateDir, 'out'),
      POLYMODAL_STATE_DIR: stateDir,
    },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-upload', version: '0.0.0' });
  await client.connect(transport);
  try {
    const pid = transport.pid;
    if (pid === null || pid === undefined) throw new Error('the meeting server has no pid');
    // The first tool call of a process loads the platform clients (a start only lists tools): list_jobs,
    // which sends nothing to the platform, pays that once, timed apart, as an agent's first look would.
    const firstStarted = performance.now();
    const listed = await client.callTool({ name: 'list_jobs', arguments: {} });
    const firstCallMs = performance.now() - firstStarted;
    if (listed.isError) throw new Error('list_jobs failed before the upload');
    const baseMiB = await residentMib(pid);
    const cpuBefore = await processCpuSeconds(pid);
    const started = performance.now();
    const startedAt = Date.now();
    const result = await client.callTool(
      { name: 'summarize_meeting', arguments: { path: file, waitSeconds: 0 } },
      { timeout: UPLOAD_LIMIT_MS },
    );
    const seconds = (performance.now() - started) / 1000;
    // Work the call set off on other threads and that ends after its answer (V8 compiling the HTTP parser
    // in the background did, issue 14) counts too: CPU and peak are read once the server has idled a while.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const cpuSeconds = (await processCpuSeconds(pid)) - cpuBefore;
    const peakMiB = await peakMib(pid);
    const structured = result.structuredContent ?? {};
    if (result.isError || typeof structured.jobId !== 'string' || structured.jobId === '') {
      const text = (result.content ?? []).map((part) => part.text ?? '').join(' ');
      throw new Error(`summarize_meeting did not create a job: ${text.slice(0, 300)}`);
    }
    // Arrival times at the sandbox (Date.now(), the machine's clock, as startedAt).
    const arrived = async (route) =>
      (await control.requests({ method: 'POST', path: `^/api/conference-summary/v1/${route}$` })).at(-1)?.at;
    const uploadAt = await arrived('uploads');
    const jobAt = await arrived('jobs');
    if (uploadAt === undefined || jobAt === undefined) throw new Error('the sandbox logged no upload or job');
    const phases = {
      beforeMs: uploadAt - startedAt,
      sendingSeconds: (jobAt - uploadAt) / 1000,
      afterMs: startedAt + seconds * 1000 - jobAt,
    };
    return { seconds, cpuSeconds, peakMiB, baseMiB, firstCallMs, ...phases };
  } finally {
    await client.close().catch(() => undefined);
  }
}

const KINDS = [
  { key: 'curl', run: runCurl },
  { key: 'floor', run: runFloor },
  { key: 'core', run: runCore },
  { key: 'mcp', run: runMcp },
];

/**
 * Measures the four ways `BENCH_UPLOAD_ROUNDS` times (default 3) against `sandbox` (a started process); with
 * `pin` (see CAN_PIN), the sandbox on CPU 0 and the clients on CPU 1, the sandbox unpinned again after.
 */
export async function measureUploadThroughput({ sandbox, file, scratch, pin = false }) {
  if (!pin) return measureRounds({ sandbox, file, scratch, pin });
  const allCpus = `0-${os.availableParallelism() - 1}`;
  execFileSync('taskset', ['-a', '-cp', '0', String(sandbox.pid)], { stdio: 'ignore' });
  try {
    return await measureRounds({ sandbox, file, scratch, pin });
  } finally {
    execFileSync('taskset', ['-a', '-cp', allCpus, String(sandbox.pid)], { stdio: 'ignore' });
  }
}

async function measureRounds({ sandbox, file, scratch, pin }) {
  const bytes = (await stat(file)).size;
  const options = {
    baseUrl: sandbox.baseUrl,
    apiKey: sandbox.env.POLYMODAL_API_KEY,
    file,
    scratch,
    control: sandbox.control,
    pin,
  };
  const runs = { curl: [], floor: [], core: [], mcp: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (let index = 0; index < KINDS.length; index++) {
      const kind = KINDS[(index + round) % KINDS.length];
      runs[kind.key].push(await kind.run({ ...options, round }));
      await sandbox.control.reset();
    }
  }
  await rm(path.join(scratch, 'curl-time.txt'), { force: true });
  const summary = {};
  for (const [key, list] of Object.entries(runs)) {
    // Each round's own ratios to curl's run in that round.
    const perRound = list.map((run, round) => ({
      speed: runs.curl[round].seconds / run.seconds,
      cpu: run.cpuSeconds / runs.curl[round].cpuSeconds,
    }));
    summary[key] = {
      seconds: median(list.map((run) => run.seconds)),
      cpuSeconds: median(list.map((run) => run.cpuSeconds)),
      speedRatio: median(perRound.map((ratio) => ratio.speed)),
      speedRatioMin: Math.min(...perRound.map((ratio) => ratio.speed)),
      speedRatioMax: Math.max(...perRound.map((ratio) => ratio.speed)),
      cpuRatio: median(perRound.map((ratio) => ratio.cpu)),
      peakMiB: median(list.map((run) => run.peakMiB)),
      peakMinMiB: Math.min(...list.map((run) => run.peakMiB)),
      peakMaxMiB: Math.max(...list.map((run) => run.peakMiB)),
      baseMiB: list[0].baseMiB,
      ...(key === 'mcp'
        ? {
            firstCallMs: median(list.map((run) => run.firstCallMs)),
            beforeMs: median(list.map((run) => run.beforeMs)),
            sendingSeconds: median(list.map((run) => run.sendingSeconds)),
            sendingRatio: median(list.map((run, round) => runs.curl[round].seconds / run.sendingSeconds)),
            floorRatio: median(list.map((run, round) => runs.floor[round].seconds / run.seconds)),
            sendingFloorRatio: median(
              list.map((run, round) => runs.floor[round].seconds / run.sendingSeconds),
            ),
            afterMs: median(list.map((run) => run.afterMs)),
          }
        : {}),
    };
  }
  return { bytes, rounds: ROUNDS, pin, ...summary };
}

export function uploadThroughputReport(result) {
  const mebibytes = result.bytes / 1024 / 1024;
  const row = (label, run) => {
    const throughput = mebibytes / run.seconds;
    return `| ${label} | ${run.seconds.toFixed(2)} | ${throughput.toFixed(0)} | ${run.speedRatio.toFixed(2)} (${run.speedRatioMin.toFixed(2)}–${run.speedRatioMax.toFixed(2)}) | ${run.cpuSeconds.toFixed(2)} | ${((run.cpuSeconds * 1e9) / result.bytes).toFixed(2)} | ${run.cpuRatio.toFixed(2)} | ${run.peakMiB.toFixed(0)} (${run.peakMinMiB.toFixed(0)}–${run.peakMaxMiB.toFixed(0)}) |`;
  };
  const mcp = result.mcp;
  const where = result.pin
    ? ', the sandbox on CPU 0 and each client on CPU 1'
    : ', sandbox and client sharing both CPUs';
  return `### A ${mebibytes.toFixed(0)} MiB recording uploaded beside \`curl -F\` (same sandbox route${where}, median of ${result.rounds} alternated rounds)

| Client | Wall (s) | MiB/s | Throughput / curl (min–max) | CPU user+sys (s) | CPU ns per byte | CPU / curl | Peak RSS MiB (min–max) |
|---|---:|---:|---:|---:|---:|---:|---:|
${[
  ['`curl -F file=@…` (/usr/bin/time)', result.curl],
  [
    'Node floor: the same form over a plain `node:net` socket, sync 2 MiB reads (child process)',
    result.floor,
  ],
  ['@polymodal/core `meeting.upload` (child process)', result.core],
  ['meeting MCP server over stdio, `summarize_meeting` (waitSeconds 0; upload + job creation)', mcp],
]
  .map(([label, run]) => row(label, run))
  .join('\n')}

Targets (issue 14), the MCP server: peak RSS **${mcp.peakMiB.toFixed(0)} MiB** (≤ 110), throughput
**${mcp.speedRatio.toFixed(2)}×** curl's (≥ 0.9), CPU per byte **${mcp.cpuRatio.toFixed(2)}×** curl's (≤ 3).
Ratios to curl are the median of each round's own ratio (min–max over the rounds).
The MCP call's wall time, from the sandbox's request log: ${mcp.beforeMs.toFixed(0)} ms until the upload request arrives
(loading the HTTP client, reading the recording's header, the upload limit lookup, the ledger's claim);
${mcp.sendingSeconds.toFixed(2)} s from there to the job creation's arrival (the bytes sent, the upload answered and recorded:
${(mebibytes / mcp.sendingSeconds).toFixed(0)} MiB/s, **${mcp.sendingRatio.toFixed(2)}×** curl's whole run); ${mcp.afterMs.toFixed(0)} ms after (the job's creation and first status).
Beside the Node floor of the same round: the whole call **${mcp.floorRatio.toFixed(2)}×** its speed, the upload alone **${mcp.sendingFloorRatio.toFixed(2)}×**;
the floor itself runs at **${result.floor.speedRatio.toFixed(2)}×** curl's speed (${result.floor.speedRatioMin.toFixed(2)}–${result.floor.speedRatioMax.toFixed(2)}).
CPU is the client process's only (the sandbox's is the same for all); the server's CPU and peak (its VmHWM over
its whole life; RSS before the call: ${mcp.baseMiB.toFixed(0)} MiB) are read ${SETTLE_MS / 1000} s after its answer, core's is the child's maxRSS (before: ${result.core.baseMiB.toFixed(0)} MiB).
The server's upload is its second tool call: the first, \`list_jobs\` (nothing sent to the platform), loads the
platform clients, which a start leaves out, in ${mcp.firstCallMs.toFixed(0)} ms (median); undici and its parser still load within
the upload, as the first request of the process.
`;
}
