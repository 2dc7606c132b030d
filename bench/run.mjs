#!/usr/bin/env node
/**
 * `pnpm bench`: measures, side by side in one run,
 *  1. peak RSS of a 500 MB recording upload to the sandbox (separate process) through @polymodal/core's
 *     streaming upload, beside Node's fetch + FormData(openAsBlob); then (upload-throughput.mjs, issue 14)
 *     wall time, client CPU and peak RSS of `curl -F`, a plain Node socket (the floor), core's
 *     `meeting.upload` and the meeting MCP server's `summarize_meeting` over stdio, alternated rounds (BENCH_UPLOAD_ROUNDS, default 3), with sandbox and
 *     clients sharing the CPUs, then with the sandbox on CPU 0 and the clients on CPU 1 (taskset);
 *  2. spawn → initialize time of the meeting MCP server beside a one-tool server built with the same SDK;
 *  3. client CPU per 20 ms frame of streamed Thai recognition, and the first-partial latency the client
 *     sees beside the latency the sandbox reports;
 *  4. 30 speech syntheses at once on a key limited to 3 unfinished tasks: wall time beside the ideal
 *     ⌈30/3⌉ × job time, 429s surfaced to the caller and duplicate tasks;
 *  5. duplicate-pay stress (duplicate-pay.mjs): 20 identical summarize_meeting calls at once over 4 meeting
 *     server processes sharing one state dir, then over 1 process: uploads and jobs the sandbox saw beside
 *     the ideal 1, distinct job ids answered, wall time of the burst;
 *  6. reads per meeting job (polls-per-job.mjs): a job followed to completion through summarize_meeting and
 *     get_meeting, its reads in the sandbox's request log beside the spec minimum ⌈D / interval⌉ + 1, and
 *     the smallest gap between two reads beside the interval (the spec's 5 s scaled by 1/20);
 *  7. tool context (tool-context.mjs): for each server and the combined one, spawn → initialize beside the
 *     one-tool floor, RSS after tools/list, model-visible bytes per tool and the warm tools/list round trip
 *     (from a 2025-11-25 client and from one pinned to 2026-07-28).
 *  8. abandoned HTTP clients (abandoned-clients.mjs, issue 12): a meeting server over Streamable HTTP, 10,000
 *     clients that initialize, list the tools and vanish without DELETE (50 at a time; a few real SDK
 *     clients too): the server's RSS at start, after them and after a quiet period, beside start + 50 MiB,
 *     stateless and with legacy sessions (cap 1,000; idle 30 min, then 10 s);
 *  9. list_jobs under load (list-jobs-load.mjs): 100 meeting jobs recorded through real calls, then
 *     `tools/call list_jobs` from 200 concurrent clients beside 1 client: p50/p99/max and calls/s;
 * 10. stores (store-latency.mjs, issue 13): the same HTTP server with the file ledger and with PostgreSQL
 *     (embedded, from npm), side by side: p50/p99 of list_jobs and of an identical summarize_meeting
 *     resuming a finished job (0 uploads), from 1 and from 20 clients, beside the 5 ms p50 goal.
 * 11. hosted (hosted.mjs, issue 24): server CPU per call and calls/s of list_jobs (100 jobs), get_meeting of a
 *     finished job and of a running one (a real status read), file store and PostgreSQL, from 1 and 20 SDK
 *     clients of each protocol generation (2025-11-25, and pinned to 2026-07-28) over stateless HTTP, in
 *     rounds alternated with a bare one-tool `createMcpHandler` server on the same SDK (the floor): medians and
 *     per-round ratios to the floor, beside the issue's targets.
 * 12. views (views.mjs): each MCP Apps view's built HTML (bytes, gzip) and its first render in headless
 *     Chromium through the view tests' host, a real result of its tool (the combined server over stdio)
 *     mounted BENCH_VIEWS_RUNS times (default 7), each in a fresh host, alternated with a minimal ext-apps
 *     view (the floor, bench/views-floor/): mount → initialized and result → content, medians and ratios.
 * 13. completion (completion.mjs): `completion/complete` of each completable kind of prompt argument (a path,
 *     a job id, a voice, a video model, a language) on the combined server over Streamable HTTP, from a client
 *     of each protocol generation, alternated with the completion of a free-text argument (the floor).
 * 14. tasks (tasks.mjs): `tasks/get` of a meeting job beside `get_meeting` of the same job, alternated, while it
 *     runs and once done: medians, p95 and their ratio.
 * 15. ledger scale (ledger-scale.mjs): ledgers of N finished meeting entries (BENCH_LEDGER_SIZES, default
 *     100,10000,100000; about 20 of them today), file store and PostgreSQL, written through their public API
 *     (build time measured); for each, the meeting server over stdio with a daily credit budget: spawn →
 *     initialize, first and warm `list_jobs`, `get_meeting` of a finished job, a paid call refused by the budget
 *     before any upload, and the server's RSS, with ratios to the smallest N.
 * Sections 5 to 15 start their own sandbox process (6, 9, 10, 11, 12 and 15 at another speed) and servers (over
 * stdio, over HTTP from 8 to 11). BENCH_ONLY selects sections by name, comma separated (upload, startup,
 * asr, tts, duplicate-pay, polls, tool-context, abandoned, list-jobs, stores, hosted, views, completion, tasks,
 * ledger-scale), e.g.
 * `BENCH_ONLY=abandoned,list-jobs,stores pnpm bench`; without it every section runs.
 * Prints a Markdown report for BENCHMARKS.md. Loopback only, bounded in count and time.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, open, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { abandonedClientsReport, measureAbandonedClients } from './abandoned-clients.mjs';
import { completionReport, measureCompletion } from './completion.mjs';
import { duplicatePayReport, measureDuplicatePay } from './duplicate-pay.mjs';
import { hostedReport, measureHosted } from './hosted.mjs';
import { ledgerScaleReport, measureLedgerScale } from './ledger-scale.mjs';
import { listJobsLoadReport, measureListJobsLoad } from './list-jobs-load.mjs';
import { measurePollsPerJob, pollsPerJobReport } from './polls-per-job.mjs';
import { binOf, startSandboxProcess } from './sandbox-process.mjs';
import { measureStoreLatency, storeLatencyReport } from './store-latency.mjs';
import { measureTasks, tasksReport } from './tasks.mjs';
import { buildOneToolFloor, measureToolContext, toolContextReport } from './tool-context.mjs';
import { CAN_PIN, measureUploadThroughput, uploadThroughputReport } from './upload-throughput.mjs';
import { measureViews, viewsReport } from './views.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const UPLOAD_BYTES = 500 * 1024 * 1024;
const STARTUP_RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 10);
const SECTIONS = [
  'upload',
  'startup',
  'asr',
  'tts',
  'duplicate-pay',
  'polls',
  'tool-context',
  'abandoned',
  'list-jobs',
  'stores',
  'hosted',
  'views',
  'completion',
  'tasks',
  'ledger-scale',
];
const only = (process.env.BENCH_ONLY ?? '')
  .split(',')
  .map((name) => name.trim())
  .filter((name) => name !== '');
const unknown = only.filter((name) => !SECTIONS.includes(name));
if (unknown.length > 0) {
  process.stderr.write(
    `BENCH_ONLY: unknown section(s) ${unknown.join(', ')}; known: ${SECTIONS.join(', ')}\n`,
  );
  process.exit(2);
}
const wants = (name) => only.length === 0 || only.includes(name);

/** A 500 MB PCM WAV (48 kHz stereo 16-bit, about 45 min: under the 2 h limit), sparse on disk. */
async function writeLargeWav(file, totalBytes) {
  const dataBytes = totalBytes - 44;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(totalBytes - 8, 4);
  header.write('WAVE', 8);
  header.write('fmt ', 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(2, 22);
  header.writeUInt32LE(48_000, 24);
  header.writeUInt32LE(48_000 * 4, 28);
  header.writeUInt16LE(4, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(dataBytes, 40);
  const handle = await open(file, 'w');
  await handle.write(header, 0, 44, 0);
  await handle.truncate(totalBytes);
  await handle.close();
}

function runChild(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim())) : reject(new Error(`${args.join(' ')} exited ${code}`)),
    );
  });
}

async function timeInitialize(command, args, env) {
  const started = performance.now();
  const client = new Client({ name: 'bench', version: '0.0.0' });
  await client.connect(new StdioClientTransport({ command, args, env, stderr: 'ignore' }));
  const elapsed = performance.now() - started;
  await client.close();
  return elapsed;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

const scratch = await mkdtemp(path.join(os.tmpdir(), 'polymodal-bench-'));
let sandbox;
try {
  sandbox = await startSandboxProcess();
  const parts = [];
  const uploadEnv = { POLYMODAL_API_KEY: sandbox.env.POLYMODAL_API_KEY };
  if (wants('upload')) {
    const file = path.join(scratch, 'large-recording.wav');
    await writeLargeWav(file, UPLOAD_BYTES);
    const smallFile = path.join(scratch, 'small-recording.wav');
    await writeLargeWav(smallFile, UPLOAD_BYTES / 10);
    const uploader = path.join(here, 'upload-rss.mjs');
    const streamedSmall = await runChild(
      [uploader, 'stream', sandbox.env.POLYMODAL_BASE_URL, smallFile],
      uploadEnv,
    );
    const streamed = await runChild([uploader, 'stream', sandbox.env.POLYMODAL_BASE_URL, file], uploadEnv);
    const fetched = await runChild([uploader, 'fetch-blob', sandbox.env.POLYMODAL_BASE_URL, file], uploadEnv);
    parts.push(uploadReport(streamedSmall, streamed, fetched));
    parts.push(uploadThroughputReport(await measureUploadThroughput({ sandbox, file, scratch })));
    parts.push(
      CAN_PIN
        ? uploadThroughputReport(await measureUploadThroughput({ sandbox, file, scratch, pin: true }))
        : 'The same with the sandbox and the clients on CPUs of their own: not measured (needs 2 CPUs and taskset).\n',
    );
  }

  const serverEnv = {
    PATH: process.env.PATH ?? '',
    POLYMODAL_BASE_URL: sandbox.env.POLYMODAL_BASE_URL,
    POLYMODAL_API_KEY: sandbox.env.POLYMODAL_API_KEY,
    POLYMODAL_ALLOWED_DIRS: scratch,
    POLYMODAL_OUTPUT_DIR: path.join(scratch, 'out'),
    POLYMODAL_STATE_DIR: path.join(scratch, 'state'),
  };
  if (wants('startup')) {
    const meetingBin = binOf('@polymodal/mcp-meeting', 'polymodal-mcp-meeting');
    // Bundled in this run, like the floor of the tool-context section.
    const oneTool = await buildOneToolFloor(scratch);
    const meetingTimes = [];
    const baselineTimes = [];
    // Alternate the two so that machine noise hits both alike.
    for (let run = 0; run < STARTUP_RUNS; run++) {
      meetingTimes.push(await timeInitialize(process.execPath, [meetingBin], serverEnv));
      baselineTimes.push(await timeInitialize(process.execPath, [oneTool], serverEnv));
    }
    parts.push(startupReport(median(meetingTimes), median(baselineTimes)));
  }
  if (wants('asr')) {
    parts.push(
      asrReport(
        await runChild([path.join(here, 'asr-client.mjs'), sandbox.env.POLYMODAL_BASE_URL], uploadEnv),
      ),
    );
  }
  if (wants('tts')) {
    parts.push(
      ttsReport(
        await runChild([path.join(here, 'tts-batch.mjs'), sandbox.env.POLYMODAL_BASE_URL], uploadEnv),
      ),
    );
  }
  // Each starts and stops its own sandbox process and servers.
  if (wants('duplicate-pay')) parts.push(duplicatePayReport(await measureDuplicatePay()));
  if (wants('polls')) parts.push(pollsPerJobReport(await measurePollsPerJob()));
  if (wants('tool-context')) parts.push(toolContextReport(await measureToolContext()));
  if (wants('abandoned')) parts.push(abandonedClientsReport(await measureAbandonedClients()));
  if (wants('list-jobs')) parts.push(listJobsLoadReport(await measureListJobsLoad()));
  if (wants('stores')) parts.push(storeLatencyReport(await measureStoreLatency()));
  if (wants('hosted')) parts.push(hostedReport(await measureHosted()));
  if (wants('views')) parts.push(viewsReport(await measureViews()));
  if (wants('completion')) parts.push(completionReport(await measureCompletion()));
  if (wants('tasks')) parts.push(tasksReport(await measureTasks()));
  if (wants('ledger-scale')) parts.push(ledgerScaleReport(await measureLedgerScale()));

  const command = only.length === 0 ? 'pnpm bench' : `BENCH_ONLY=${only.join(',')} pnpm bench`;
  const report = `## Run of ${new Date().toISOString().slice(0, 10)} (Node ${process.version}, ${os.cpus().length} cores)

Command: \`${command}\`

${parts.join('\n')}`;
  process.stdout.write(`${report}\n`);
} finally {
  await sandbox?.stop();
  await rm(scratch, { recursive: true, force: true });
}

function uploadReport(streamedSmall, streamed, fetched) {
  const uploadMb = UPLOAD_BYTES / 1024 / 1024;
  return `### Peak RSS of a ${uploadMb} MB recording upload to the sandbox (separate process)

| Client | File (MB) | RSS before (MB) | Peak RSS (MB) | Growth (MB) | Time (s) | Peak RSS / file size |
|---|---:|---:|---:|---:|---:|---:|
${[
  ['@polymodal/core `meeting.upload` (undici request, streamed multipart)', uploadMb / 10, streamedSmall],
  ['@polymodal/core `meeting.upload` (undici request, streamed multipart)', uploadMb, streamed],
  ['Node fetch + FormData(fs.openAsBlob)', uploadMb, fetched],
]
  .map(
    ([label, sizeMb, run]) =>
      `| ${label} | ${sizeMb} | ${run.baselineMb.toFixed(0)} | ${run.peakMb.toFixed(0)} | ${(run.peakMb - run.baselineMb).toFixed(0)} | ${run.seconds.toFixed(1)} | ${(run.peakMb / sizeMb).toFixed(2)} |`,
  )
  .join('\n')}

Ratio core / fetch peak RSS: **${(streamed.peakMb / fetched.peakMb).toFixed(2)}**. Growth of core's upload at
${uploadMb} MB / at ${uploadMb / 10} MB: **${((streamed.peakMb - streamed.baselineMb) / (streamedSmall.peakMb - streamedSmall.baselineMb)).toFixed(2)}** (1.0 = flat).
`;
}

function startupReport(meetingMs, baselineMs) {
  return `### Spawn → initialize over stdio (median of ${STARTUP_RUNS}, alternated)

| Server | Median (ms) |
|---|---:|
| polymodal-mcp-meeting | ${meetingMs.toFixed(0)} |
| one-tool server, same SDK, bundled with esbuild | ${baselineMs.toFixed(0)} |

Ratio meeting / one-tool: **${(meetingMs / baselineMs).toFixed(2)}**.
`;
}

function asrReport(asr) {
  return `### Streaming Thai recognition through @polymodal/core (sandbox in a separate process)

| Measure | Value |
|---|---:|
| Client CPU per 20 ms frame (unpaced, ${asr.audioSeconds.toFixed(1)} s of 44.1 kHz audio resampled to 16 kHz, ${asr.correct ? 'all phrases recognised' : 'RECOGNITION MISMATCH'}) | ${(asr.cpuPerFrameMs * 1000).toFixed(0)} µs |
| Client CPU / real time of the audio | ${((asr.cpuPerFrameMs / 20) * 100).toFixed(2)} % |
| First partial, latency seen by the client (real-time pacing) | ${asr.firstPartial.observedMs.toFixed(1)} ms |
| First partial, latency reported by the sandbox (\`latency_ms\`) | ${asr.firstPartial.reportedMs} ms |

Client-observed / server-reported first-partial latency: **${(asr.firstPartial.observedMs / Math.max(0.1, asr.firstPartial.reportedMs)).toFixed(1)}** (the server's figure is floored at 0.1 ms); the difference is transport and event handling in both processes.
Client CPU includes decoding and resampling the WAV; the sandbox's CPU is not counted.
`;
}

function ttsReport(tts) {
  return `### ${tts.sentences} speech syntheses at once, key limit ${tts.limit} unfinished tasks (sandbox in a separate process, speed 1)

Each sentence takes ${tts.jobSeconds.toFixed(1)} s on the sandbox (0.5 s pending, 1 s + 40 ms per character running), so the
ideal wall time is ⌈${tts.sentences}/${tts.limit}⌉ × ${tts.jobSeconds.toFixed(1)} s = ${tts.ideal.toFixed(1)} s.

| Governor | Wall time (s) | Wall / ideal | 429 answers waited out | 429s surfaced | Failed | Tasks created | Duplicates | Peak unfinished |
|---|---:|---:|---:|---:|---:|---:|---:|---:|
${tts.runs
  .map(
    (run) =>
      `| ${run.label} | ${run.seconds.toFixed(1)} | ${(run.seconds / tts.ideal).toFixed(2)} | ${run.busyAnswers} | ${run.surfaced429} | ${run.failed} | ${run.created} | ${run.duplicates} | ${run.peakActive} |`,
  )
  .join('\n')}

The gap to the ideal is the polling rule: status is read no faster than Retry-After (≥ 1 s) with jitter,
so each slot is noticed free up to about a second late.
`;
}
