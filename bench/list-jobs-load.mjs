#!/usr/bin/env node
// `list_jobs` latency under load: one meeting server over Streamable HTTP (stateless, file ledger), with
// 100 meeting jobs recorded through real `summarize_meeting` calls against the sandbox (separate process),
// then `tools/call list_jobs` (default limit 20) timed from 1 client and from 200 clients at once, each on
// its own connection issuing its calls one after the other. p50/p99/max in ms, throughput, and the
// loaded p50 over the single-client p50. The load comes from this process, on the same machine as the
// server. Imported by run.mjs; run alone, `node list-jobs-load.mjs` prints its section.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHttpServer } from './http-server-process.mjs';
import { failureSummary, recordJobs, timeToolCalls, writeRecordings } from './meeting-jobs-http.mjs';
import { binOf, startSandboxProcess, total } from './sandbox-process.mjs';

const JOBS = 100;
const LIMIT = 20;
const SINGLE_CALLS = 300;
const CLIENTS = 200;
const CALLS_PER_CLIENT = 20;

export async function measureListJobsLoad() {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'polymodal-bench-list-jobs-'));
  let sandbox;
  let server;
  try {
    sandbox = await startSandboxProcess(['--speed', '20']);
    const mediaDir = path.join(scratch, 'media');
    const files = await writeRecordings(mediaDir, JOBS);
    server = await startHttpServer(binOf('@polymodal/mcp-meeting', 'polymodal-mcp-meeting'), {
      POLYMODAL_BASE_URL: sandbox.baseUrl,
      POLYMODAL_API_KEY: sandbox.env.POLYMODAL_API_KEY,
      POLYMODAL_STATE_DIR: path.join(scratch, 'state'),
      POLYMODAL_ALLOWED_DIRS: mediaDir,
      POLYMODAL_OUTPUT_DIR: path.join(scratch, 'out'),
    });
    await recordJobs(server.url, files);
    const counters = await sandbox.control.counters();
    const check = (answer) =>
      answer.structured.count === LIMIT ? undefined : `list_jobs listed ${answer.structured.count} jobs`;
    const call = { name: 'list_jobs', args: {}, check };
    const single = await timeToolCalls(server.url, { clients: 1, calls: SINGLE_CALLS, ...call });
    const loaded = await timeToolCalls(server.url, { clients: CLIENTS, calls: CALLS_PER_CLIENT, ...call });
    return {
      jobs: JOBS,
      uploads: total(counters.uploads),
      jobsCreated: total(counters.jobsCreated),
      limit: LIMIT,
      runs: [single, loaded],
    };
  } finally {
    await server?.stop();
    await sandbox?.stop();
    await rm(scratch, { recursive: true, force: true });
  }
}

export function listJobsLoadReport({ jobs, uploads, jobsCreated, limit, runs }) {
  const [single, loaded] = runs;
  const failures = runs.flatMap((run) =>
    failureSummary(run.failures).map((text) => `${run.clients} client(s): ${text}`),
  );
  return `### \`list_jobs\` latency under ${loaded.clients} concurrent clients (meeting server over Streamable HTTP, stateless, file ledger)

${jobs} meeting jobs recorded first through real \`summarize_meeting\` calls (the sandbox counted ${uploads} uploads and
${jobsCreated} jobs); then \`tools/call list_jobs\` (limit ${limit}) from one client, then from ${loaded.clients} clients at once, each on
its own connection with its calls one after the other. The clients run in the benchmark's process on the
same machine.

| Clients | Calls | p50 (ms) | p99 (ms) | Max (ms) | Calls/s | Wrong answers or errors |
|---:|---:|---:|---:|---:|---:|---:|
${runs
  .map(
    (run) =>
      `| ${run.clients} | ${run.calls.toLocaleString('en')} | ${run.p50.toFixed(2)} | ${run.p99.toFixed(2)} | ${run.max.toFixed(1)} | ${run.perSecond.toFixed(0)} | ${run.failures.length} |`,
  )
  .join('\n')}

p50 under ${loaded.clients} clients / single-client p50: **${(loaded.p50 / single.p50).toFixed(1)}**; throughput under load / single client:
**${(loaded.perSecond / single.perSecond).toFixed(2)}**.
${failures.length > 0 ? `\nFailures:\n${failures.map((text) => `- ${text}`).join('\n')}\n` : ''}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${listJobsLoadReport(await measureListJobsLoad())}\n`);
}
