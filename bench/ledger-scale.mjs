#!/usr/bin/env node
// What the job ledger's size costs a user's calls: ledgers of N meeting entries (BENCH_LEDGER_SIZES, default
// 100,10000,100000), each a year of finished jobs with about 20 of them today, written through the ledgers'
// public API (core's file store, and PostgreSQL through @polymodal/store-postgres, embedded from npm) as the
// job engine leaves them, 8 inserts at a time; the ledger grows from one N to the next. For each store and
// N, the built meeting server is spawned over stdio (as a host runs it), with a daily credit budget that
// today's entries already fill, and timed: spawn → initialize, the first `list_jobs` (default limit), warm
// `list_jobs` and `get_meeting` of a finished job (medians), a paid call refused by the budget before any
// upload, and the server's RSS after them. The sandbox (separate process, speed 20) serves both stores, each
// on its own key. Imported by run.mjs; run alone, `node ledger-scale.mjs` prints its section.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createJobLedger } from '@polymodal/core/ledger';
import { createPostgresJobLedger } from '@polymodal/store-postgres';
import pg from 'pg';
import { inBatches, percentile } from './http-server-process.mjs';
import { writeRecordings } from './meeting-jobs-http.mjs';
import { startMeetingServer } from './meeting-server.mjs';
import { startPostgres } from './postgres-process.mjs';
import { residentMib } from './proc-stats.mjs';
import { startSandboxProcess, total } from './sandbox-process.mjs';

export const LEDGER_SIZES = (process.env.BENCH_LEDGER_SIZES ?? '100,10000,100000')
  .split(',')
  .map((text) => Number(text.trim()))
  .sort((a, b) => a - b);
const TODAY_ENTRIES = 20;
/** Today's entries reserve the whole budget between them, so any new recording is refused at admission. */
const CREDITS_PER_DAY = 1_000_000;
const TODAY_CREDITS = CREDITS_PER_DAY / TODAY_ENTRIES;
/** A past meeting of 2 started minutes (4 credits each). */
const PAST_CREDITS = 8;
const YEAR_DAYS = 365;
const DAY_MS = 24 * 60 * 60 * 1000;
/** The engine's last write of a finished job (its COMPLETED read) comes shortly after the job started. */
const LAST_WRITE_AFTER_MS = 90_000;
const INSERT_CONCURRENCY = 8;
const WARM_CALLS = 20;
const POLL_INTERVAL_MS = 250;

const utcDay = (ms) => new Date(ms).toISOString().slice(0, 10);

/**
 * Entry `index` of a ledger built at `now`: the first TODAY_ENTRIES are today's (between midnight UTC and
 * now), the others spread over the YEAR_DAYS before today, at a time of day that varies with the index.
 */
function entryAt(index, now) {
  const midnight = Date.parse(`${utcDay(now)}T00:00:00.000Z`);
  const today = index < TODAY_ENTRIES;
  const createdMs = today
    ? midnight + Math.floor(((now - midnight) * (index + 1)) / (TODAY_ENTRIES + 2))
    : midnight - (1 + ((index - TODAY_ENTRIES) % YEAR_DAYS)) * DAY_MS + ((index * 7919) % 86_400) * 1000;
  const fingerprint = createHash('sha256').update(`bench-ledger-scale\n${index}`).digest('hex');
  return {
    service: 'meeting',
    fingerprint,
    id: `bench-${fingerprint.slice(0, 24)}`,
    lastStatus: 'COMPLETED',
    createdAt: new Date(createdMs).toISOString(),
    title: `Weekly meeting ${index}`,
    request: {
      file: `/recordings/meeting-${index}.wav`,
      size: 2_116_844,
      sourceLanguage: 'auto',
      targetLanguage: 'en',
      creditReservation: {
        day: utcDay(createdMs),
        credits: today ? TODAY_CREDITS : PAST_CREDITS,
        basis: today ? 'bench: a share of the day' : '2 started minutes × 4',
      },
    },
  };
}

/** When the engine would last have written an entry: LAST_WRITE_AFTER_MS after its creation, never later than now. */
const lastWriteMs = (entry, now) => Math.min(Date.parse(entry.createdAt) + LAST_WRITE_AFTER_MS, now);

/**
 * Adds entries [from, to) to the file ledger in `dir`, each written at the time the engine would have last
 * written it (the ledger's clock set per entry: the entry's `updatedAt` and the day's journals it is noted
 * in), INSERT_CONCURRENCY ledgers side by side as processes would.
 */
async function growFileLedger(dir, from, to, now) {
  let next = from;
  await Promise.all(
    Array.from({ length: INSERT_CONCURRENCY }, async () => {
      let clock = now;
      const ledger = createJobLedger({ dir, now: () => clock });
      for (let index = next++; index < to; index = next++) {
        const entry = entryAt(index, now);
        clock = lastWriteMs(entry, now);
        const { inserted } = await ledger.insert(entry);
        if (!inserted) throw new Error(`entry ${index} was already there`);
      }
    }),
  );
}

/** Adds entries [from, to) to the tenant's PostgreSQL ledger; `updated_at` as the file ledger's clock. */
async function growPostgresLedger(url, from, to, now) {
  const buildStarted = new Date().toISOString();
  const ledger = createPostgresJobLedger({ connectionString: url, tenant: '', poolSize: INSERT_CONCURRENCY });
  try {
    await inBatches(to - from, INSERT_CONCURRENCY, async (offset) => {
      const { inserted } = await ledger.insert(entryAt(from + offset, now));
      if (!inserted) throw new Error(`entry ${from + offset} was already there`);
    });
  } finally {
    await ledger.close();
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `UPDATE job_ledger SET updated_at = LEAST(created_at + $1 * interval '1 millisecond', $2::timestamptz)
        WHERE tenant = '' AND service = 'meeting' AND id LIKE 'bench-%' AND updated_at >= $3::timestamptz`,
      [LAST_WRITE_AFTER_MS, new Date(now).toISOString(), buildStarted],
    );
    // A ledger written over a year has been vacuumed and analysed by autovacuum many times over; this one
    // was rewritten whole a moment ago, so its dead row versions (still in every index) are cleared as
    // autovacuum would, and the planner gets its statistics.
    await client.query('VACUUM ANALYZE job_ledger');
  } finally {
    await client.end();
  }
}

/** Follows a real meeting job to completion (no budget set), so that `get_meeting` reads a finished job. */
async function finishRealJob(env, file) {
  const server = await startMeetingServer(env);
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      const answer = await server.call('summarize_meeting', { path: file, waitSeconds: 20 });
      if (answer.isError) throw new Error(`summarize_meeting failed: ${answer.text}`);
      if (answer.structured.done === true) return answer.structured.jobId;
    }
    throw new Error('the meeting job did not finish within 5 calls');
  } finally {
    await server.close();
  }
}

/** `calls` calls in a row, each checked; their times in ms. */
async function timeCalls(server, calls, name, args, check) {
  const times = [];
  for (let index = 0; index < calls; index++) {
    const started = performance.now();
    const answer = await server.call(name, args);
    times.push(performance.now() - started);
    const problem = check(answer);
    if (problem) throw new Error(`${name}: ${problem}`);
  }
  return times;
}

const listed = (answer) => (answer.isError ? answer.text : undefined);

/** One store at one size: a fresh server over stdio and the calls a user makes of it. */
async function measureServer(store, sandbox) {
  const env = { ...store.env, POLYMODAL_CREDITS_PER_DAY: String(CREDITS_PER_DAY) };
  let started = performance.now();
  const server = await startMeetingServer(env);
  try {
    const startupMs = performance.now() - started;
    started = performance.now();
    const first = await server.call('list_jobs', {});
    const firstListMs = performance.now() - started;
    if (first.isError) throw new Error(`list_jobs: ${first.text}`);
    const warmList = await timeCalls(server, WARM_CALLS, 'list_jobs', {}, listed);
    const statusRead = await timeCalls(
      server,
      WARM_CALLS,
      'get_meeting',
      { jobId: store.finishedJobId },
      (answer) =>
        answer.structured.done === true
          ? undefined
          : `answered done=${answer.structured.done}: ${answer.text}`,
    );
    const uploadsBefore = total((await sandbox.control.counters()).uploads);
    const admission = await timeCalls(
      server,
      WARM_CALLS,
      'summarize_meeting',
      { path: store.refusedFile, waitSeconds: 0 },
      (answer) => {
        store.refusal ??= answer.text;
        return answer.isError && /budget|credits/i.test(answer.text)
          ? undefined
          : `was not refused by the budget: ${answer.text.slice(0, 200)}`;
      },
    );
    const uploads = total((await sandbox.control.counters()).uploads) - uploadsBefore;
    if (uploads !== 0) throw new Error(`the refused calls uploaded ${uploads} time(s)`);
    return {
      startupMs,
      firstListMs,
      listedCount: first.structured.count,
      warmListMs: percentile(warmList, 50),
      statusReadMs: percentile(statusRead, 50),
      firstAdmissionMs: admission[0],
      admissionMs: percentile(admission, 50),
      rssMib: await residentMib(server.pid),
    };
  } finally {
    await server.close();
  }
}

/**
 * The file store's one-off migration: the same directory as an earlier version left it (its journals moved
 * away), a fresh server, and its first `list_jobs`, which reads every entry once into the journals.
 */
async function measureMigration(store) {
  const journal = path.join(store.stateDir, 'jobs', 'journal');
  await rename(journal, `${journal}.before`);
  const server = await startMeetingServer(store.env);
  try {
    const started = performance.now();
    const first = await server.call('list_jobs', {});
    const elapsed = performance.now() - started;
    if (first.isError) throw new Error(`list_jobs after the migration: ${first.text}`);
    return elapsed;
  } finally {
    await server.close();
    await rm(`${journal}.before`, { recursive: true, force: true });
  }
}

export async function measureLedgerScale() {
  // Checked here, not on import: run.mjs imports every section.
  if (LEDGER_SIZES.some((size) => !Number.isSafeInteger(size) || size < TODAY_ENTRIES)) {
    throw new Error(`BENCH_LEDGER_SIZES: each size must be a whole number ≥ ${TODAY_ENTRIES}`);
  }
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'polymodal-bench-ledger-scale-'));
  let sandbox;
  let postgres;
  try {
    sandbox = await startSandboxProcess(['--speed', '20']);
    postgres = await startPostgres();
    const stores = [
      { label: 'file (POLYMODAL_STATE_DIR)', key: sandbox.env.POLYMODAL_API_KEY, extra: {} },
      {
        label: 'PostgreSQL (POLYMODAL_DATABASE_URL)',
        key: sandbox.env.POLYMODAL_API_KEY_2,
        extra: { POLYMODAL_DATABASE_URL: postgres.url },
      },
    ];
    for (const [index, store] of stores.entries()) {
      const mediaDir = path.join(scratch, `media-${index}`);
      [store.finishedFile, store.refusedFile] = await writeRecordings(mediaDir, 2);
      store.stateDir = path.join(scratch, `state-${index}`);
      await mkdir(store.stateDir, { recursive: true });
      store.env = {
        POLYMODAL_BASE_URL: sandbox.baseUrl,
        POLYMODAL_API_KEY: store.key,
        POLYMODAL_STATE_DIR: store.stateDir,
        POLYMODAL_ALLOWED_DIRS: mediaDir,
        POLYMODAL_OUTPUT_DIR: path.join(scratch, `out-${index}`),
        POLYMODAL_POLL_INTERVAL_MS: String(POLL_INTERVAL_MS),
        ...store.extra,
      };
      store.rows = [];
    }
    const now = Date.now();
    let built = 0;
    for (const size of LEDGER_SIZES) {
      for (const [index, store] of stores.entries()) {
        const started = performance.now();
        if (index === 0) await growFileLedger(path.join(store.stateDir, 'jobs'), built, size, now);
        else await growPostgresLedger(postgres.url, built, size, now);
        const buildSeconds = (performance.now() - started) / 1000;
        store.finishedJobId ??= await finishRealJob(store.env, store.finishedFile);
        store.rows.push({
          size,
          added: size - built,
          buildSeconds,
          ...(await measureServer(store, sandbox)),
          ...(index === 0 ? { migrationListMs: await measureMigration(store) } : {}),
        });
      }
      built = size;
    }
    return { stores: stores.map(({ label, rows, refusal }) => ({ label, rows, refusal })) };
  } finally {
    await sandbox?.stop();
    await postgres?.destroy();
    await rm(scratch, { recursive: true, force: true });
  }
}

const ms = (value) => value.toFixed(value < 10 ? 2 : 1);
const ratio = (value, base) => `${(value / base).toFixed(2)}×`;

function storeTable({ label, rows }) {
  const [base] = rows;
  const lines = rows.map(
    (row) =>
      `| ${row.size.toLocaleString('en-US')} | ${row.added.toLocaleString('en-US')} in ${row.buildSeconds.toFixed(1)} s | ${ms(row.startupMs)} | ${ms(row.firstListMs)} | ${ms(row.warmListMs)} | ${ms(row.statusReadMs)} | ${ms(row.firstAdmissionMs)} / ${ms(row.admissionMs)} | ${row.rssMib?.toFixed(0) ?? 'n/a'} | ${row.migrationListMs === undefined ? 'n/a' : ms(row.migrationListMs)} |`,
  );
  const ratios = rows
    .slice(1)
    .map(
      (row) =>
        `| ${row.size.toLocaleString('en-US')} / ${base.size.toLocaleString('en-US')} | | ${ratio(row.startupMs, base.startupMs)} | ${ratio(row.firstListMs, base.firstListMs)} | ${ratio(row.warmListMs, base.warmListMs)} | ${ratio(row.statusReadMs, base.statusReadMs)} | ${ratio(row.firstAdmissionMs, base.firstAdmissionMs)} / ${ratio(row.admissionMs, base.admissionMs)} | ${row.rssMib && base.rssMib ? `${row.rssMib >= base.rssMib ? '+' : ''}${(row.rssMib - base.rssMib).toFixed(0)} MiB` : 'n/a'} | |`,
    );
  return `#### ${label}

| Entries (N) | Added to the ledger (build time) | Spawn → initialize (ms) | First \`list_jobs\` (ms) | Warm \`list_jobs\`, median of ${WARM_CALLS} (ms) | \`get_meeting\` of a finished job, median of ${WARM_CALLS} (ms) | Paid call refused by the budget, first / median of ${WARM_CALLS} (ms) | Server RSS after (MiB) | First \`list_jobs\` of the directory as an earlier version left it: the one-off migration (ms) |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${[...lines, ...ratios].join('\n')}
`;
}

export function ledgerScaleReport({ stores }) {
  const sizes = stores[0].rows.map((row) => row.size.toLocaleString('en-US')).join(', ');
  return `### Ledger scale: a user's calls on ledgers of ${sizes} meeting entries (meeting server over stdio)

Command: \`BENCH_ONLY=ledger-scale BENCH_LEDGER_SIZES=${LEDGER_SIZES.join(',')} pnpm bench\`

Each ledger holds N finished meeting entries (${TODAY_ENTRIES} of them today, the rest over the ${YEAR_DAYS} days before), written through the
store's public API ${INSERT_CONCURRENCY} at a time, dated as the engine leaves them (each entry's last write ${LAST_WRITE_AFTER_MS / 1000} s after its
creation: the file store written with its clock set to that time, so the entry and the day's journals say it;
PostgreSQL's \`updated_at\` set to it after the inserts, then \`VACUUM ANALYZE\` as autovacuum would have run on a
ledger written over a year); the ledger grows from one N to the next, and one real job,
followed to completion on the sandbox (speed 20), is the finished job read. For each N, a fresh server with
\`POLYMODAL_CREDITS_PER_DAY=${CREDITS_PER_DAY}\`, which today's entries fill (${TODAY_ENTRIES} × ${TODAY_CREDITS} credits reserved), is timed from the
benchmark's process: spawn → initialize; the first \`list_jobs\` (default limit); ${WARM_CALLS} more (median); ${WARM_CALLS} \`get_meeting\` of the
finished job (\`waitSeconds\` default); ${WARM_CALLS} \`summarize_meeting\` of a 22 s recording (\`waitSeconds: 0\`), each refused by the
budget: path and length of the recording, its fingerprint, the ledger claim, the count of today's credits and the
refusal written back, with 0 uploads (checked on the sandbox); then the server's VmRSS. On the file store, last, the
same directory without its journals (as an earlier version left it) and a fresh server's first \`list_jobs\`: the
one-off migration that reads every entry once. Ratios are to N = ${stores[0].rows[0].size} in the same run.

${stores.map(storeTable).join('\n')}
The refusal, as the first refused call answered on the file store: ${JSON.stringify(stores[0].refusal.replaceAll('\n', ' ').slice(0, 300))}.
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${ledgerScaleReport(await measureLedgerScale())}\n`);
}
