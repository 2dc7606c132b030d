#!/usr/bin/env node
// Hosted cost per call (issue 24): the meeting server over stateless Streamable HTTP, one process per store
// (file ledger, and PostgreSQL from npm as store-latency.mjs starts it), beside a floor — a bare server on
// the SDK version the lockfile pins, stateless, one tool answering a ~1 KB structured result with an output
// schema, served by the SDK's `createMcpHandler` as the Polymodal servers serve it (hosted-floor-server.mjs).
// Closed-loop SDK clients (Client + StreamableHTTPClientTransport, each on its own connection, one call after
// the other), 1 and 20 at once, of each protocol generation: the default client (2025-11-25, `initialize` and
// the stateless legacy path) and one pinned to 2026-07-28 (`versionNegotiation`), in rounds that alternate
// the floor and every (call, store) so that machine noise hits them alike. Per run: the server process's CPU
// (utime + stime from /proc over the run, divided by the calls) and calls per second; per round, each
// figure's ratio to the floor's in that round; the report gives medians over the rounds.
//
// Calls: `list_jobs` with 100 jobs in the ledger (recorded through real `summarize_meeting` calls),
// `get_meeting` of a finished job, and `get_meeting` of a job that is not finished: the sandbox's clock is
// held once the first job finished, so the other 99 stay unfinished, and each call reads the next of them
// in turn. POLYMODAL_POLL_INTERVAL_MS is 20 ms, so a job read again 99 calls later is past its interval and
// each such call is a real status read at the sandbox (the report counts them). Every answer is checked (the
// finished job: COMPLETED and done; a running one: its own status, not done, never UNKNOWN); a wrong answer
// or error is listed, fails its row's target and ends the run with a failing exit status.
//
// BENCH_HOSTED_ROUNDS (default 3) and BENCH_HOSTED_SECONDS (per run, default 3) bound it; BENCH_HOSTED_KINDS
// (e.g. `list_jobs,get_meeting_running`) limits it to some calls, BENCH_HOSTED_PROTOCOLS (`2025-11-25` or
// `2026-07-28`) to one generation's clients. With
// BENCH_HOSTED_PROFILE=<dir>, it instead runs each call kind for BENCH_HOSTED_SECONDS with 20 clients against
// a fresh file-store server (BENCH_HOSTED_PROFILE_STORE=PostgreSQL: the PostgreSQL one), from clients of the
// first of BENCH_HOSTED_PROTOCOLS, started with
// `--cpu-prof --cpu-prof-dir=<dir>`, leaving one .cpuprofile per kind there (summarise them with
// summarize-cpu-profile.mjs).
// Imported by run.mjs; run alone, `node hosted.mjs` prints its section.
import { mkdir, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startHttpServer } from './http-server-process.mjs';
import { finishJob, recordJobs, startStoreServers } from './meeting-jobs-http.mjs';
import { startPostgres } from './postgres-process.mjs';
import { processCpuSeconds } from './proc-stats.mjs';
import { binOf, startSandboxProcess } from './sandbox-process.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const JOBS = 100;
const ROUNDS = Number(process.env.BENCH_HOSTED_ROUNDS ?? 3);
const RUN_SECONDS = Number(process.env.BENCH_HOSTED_SECONDS ?? 3);
const CLIENT_COUNTS = [1, 20];
const WARM_UP_SECONDS = 1;
export const POLL_INTERVAL_MS = 20;
/** Targets as ratios to the floor (issue 24): CPU per call at most, calls/s with 20 clients at least. */
export const CPU_TARGETS = { list_jobs: 2, get_meeting_finished: 2, get_meeting_running: 3 };
export const THROUGHPUT_TARGET = 0.5;
const ALL_KINDS = ['list_jobs', 'get_meeting_finished', 'get_meeting_running'];
/** BENCH_HOSTED_KINDS (comma separated) measures only those calls, for a quicker look at one of them. */
const KINDS = process.env.BENCH_HOSTED_KINDS
  ? ALL_KINDS.filter((kind) => process.env.BENCH_HOSTED_KINDS.split(',').includes(kind))
  : ALL_KINDS;
if (KINDS.length === 0) throw new Error(`BENCH_HOSTED_KINDS: none of ${ALL_KINDS.join(', ')}`);
/** The protocol generations of the clients, and how the SDK client is told to speak each. */
const CLIENT_OPTIONS = {
  '2025-11-25': undefined,
  '2026-07-28': { versionNegotiation: { mode: { pin: '2026-07-28' } } },
};
const ALL_PROTOCOLS = Object.keys(CLIENT_OPTIONS);
const PROTOCOLS = process.env.BENCH_HOSTED_PROTOCOLS
  ? ALL_PROTOCOLS.filter((protocol) => process.env.BENCH_HOSTED_PROTOCOLS.split(',').includes(protocol))
  : ALL_PROTOCOLS;
if (PROTOCOLS.length === 0) throw new Error(`BENCH_HOSTED_PROTOCOLS: none of ${ALL_PROTOCOLS.join(', ')}`);

/** Status reads of meeting jobs the sandbox answered so far (all keys). */
async function meetingReads(sandbox) {
  const { requests } = await sandbox.control.counters();
  return Object.entries(requests ?? {})
    .filter(([route]) => /^GET .*conference-summary.*\/jobs\/[^/]+$/.test(route))
    .reduce((sum, [, count]) => sum + count, 0);
}

/**
 * `fetch` for the SDK client transport, giving each request an AbortSignal of its own. The transport passes
 * one signal, its connection's, to every request, and Node's fetch (undici) detaches the listener it adds
 * to a request's signal only once the request is garbage-collected: a client calling in a closed loop
 * (hundreds of calls a second) adds listeners faster than collections remove them, and past 1500 (the limit
 * undici itself sets on the signal) Node prints MaxListenersExceededWarning for every further request.
 * Raising the limit would only hide that growth (and the signal is the transport's own, out of reach). Here
 * the connection's signal holds one listener per request under way, removed as soon as the response body
 * ends, fails or is cancelled; closing the transport still aborts every request under way.
 */
async function fetchWithOwnSignal(url, init) {
  const connection = init?.signal;
  if (!connection) return fetch(url, init);
  const own = new AbortController();
  const forward = () => own.abort(connection.reason);
  const unlink = () => connection.removeEventListener('abort', forward);
  if (connection.aborted) own.abort(connection.reason);
  else connection.addEventListener('abort', forward, { once: true });
  let response;
  try {
    response = await fetch(url, { ...init, signal: own.signal });
  } catch (error) {
    unlink();
    throw error;
  }
  if (!response.body) {
    unlink();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          unlink();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        unlink();
        controller.error(error);
      }
    },
    cancel(reason) {
      unlink();
      return reader.cancel(reason);
    },
  });
  const { status, statusText, headers } = response;
  return new Response(body, { status, statusText, headers });
}

/** `count` SDK clients of `protocol`, connected; throws unless each negotiated that version. */
async function connectClients(url, count, protocol) {
  return Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const client = new Client(
        { name: `bench-hosted-${index}`, version: '0.0.0' },
        CLIENT_OPTIONS[protocol],
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: fetchWithOwnSignal }));
      const negotiated = client.getNegotiatedProtocolVersion();
      if (negotiated !== protocol) {
        await client.close();
        throw new Error(`a ${protocol} client negotiated ${negotiated} with ${url}`);
      }
      return client;
    }),
  );
}

/**
 * `clients` SDK clients call `nextCall()`'s tool one after the other for `seconds`; resolves the calls
 * made, the seconds, the server's CPU seconds over them and the wrong answers (checked, never thrown).
 */
async function runClosedLoop(server, { clients, protocol, seconds, nextCall, check }) {
  const connected = await connectClients(server.url, clients, protocol);
  let calls = 0;
  const failures = [];
  try {
    const cpuBefore = await processCpuSeconds(server.pid);
    const started = performance.now();
    const endAt = started + seconds * 1000;
    await Promise.all(
      connected.map(async (client) => {
        while (performance.now() < endAt) {
          const { name, args, expect } = nextCall();
          try {
            const result = await client.callTool({ name, arguments: args });
            const problem =
              result.isError === true
                ? (result.content ?? []).map((part) => part.text ?? '').join(' ')
                : check(result.structuredContent ?? {}, expect);
            if (problem) failures.push(problem);
          } catch (error) {
            failures.push(error instanceof Error ? error.message : String(error));
          }
          calls += 1;
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    const cpu = (await processCpuSeconds(server.pid)) - cpuBefore;
    return {
      calls,
      seconds: elapsed,
      cpuPerCallMs: (cpu * 1000) / calls,
      perSecond: calls / elapsed,
      failures,
    };
  } finally {
    await Promise.all(connected.map((client) => client.close().catch(() => undefined)));
  }
}

/** What each call kind sends to a store's server, and how its answer is checked. */
function callsOf(store) {
  let next = 0;
  return {
    list_jobs: {
      nextCall: () => ({ name: 'list_jobs', args: {} }),
      check: (answer) => (answer.count === 20 ? undefined : `list_jobs listed ${answer.count}`),
    },
    get_meeting_finished: {
      nextCall: () => ({
        name: 'get_meeting',
        args: { jobId: store.finishedJobId },
        expect: store.finishedJobId,
      }),
      // A finished meeting is never "UNKNOWN" or "still running", whatever other calls read at the same time.
      check: (answer, jobId) =>
        answer.jobId === jobId && answer.done === true && answer.status === 'COMPLETED'
          ? undefined
          : `get_meeting of a finished job answered ${answer.status}, done=${answer.done}: ${JSON.stringify(answer).slice(0, 400)}`,
    },
    get_meeting_running: {
      nextCall: () => {
        const jobId = store.runningJobIds[next++ % store.runningJobIds.length];
        return { name: 'get_meeting', args: { jobId }, expect: jobId };
      },
      // Each call reads its job (its interval long past): "UNKNOWN" would be a read given up.
      check: (answer, jobId) =>
        answer.jobId === jobId && answer.done === false && answer.status !== 'UNKNOWN'
          ? undefined
          : `get_meeting of a running job answered ${answer.status}, done=${answer.done}: ${JSON.stringify(answer).slice(0, 400)}`,
    },
  };
}

const FLOOR_CALL = {
  nextCall: () => ({ name: 'list_items', args: {} }),
  check: (answer) => (answer.count === 8 ? undefined : `list_items listed ${answer.count}`),
};

/** Sandbox, PostgreSQL and the seeded stores; `stop()` in a finally. */
async function prepare(scratch) {
  const sandbox = await startSandboxProcess(['--speed', '20']);
  let postgres;
  const servers = [];
  const stop = async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await sandbox.stop();
    await postgres?.destroy();
  };
  try {
    postgres = await startPostgres();
    const bin = binOf('@polymodal/mcp-meeting', 'polymodal-mcp-meeting');
    const stores = await startStoreServers({
      sandbox,
      postgresUrl: postgres.url,
      scratch,
      jobs: JOBS,
      labels: ['file', 'PostgreSQL'],
      pollIntervalMs: POLL_INTERVAL_MS,
      started: servers,
    });
    for (const store of stores) {
      await recordJobs(store.server.url, store.files.slice(0, 1));
      store.finishedJobId = await finishJob(store.server.url, store.files[0]);
    }
    // From here on no job progresses: the other 99 of each store stay unfinished.
    await sandbox.control.holdClock();
    for (const store of stores)
      store.runningJobIds = await recordJobs(store.server.url, store.files.slice(1));
    const floor = await startHttpServer(path.join(here, 'hosted-floor-server.mjs'), {});
    servers.push(floor);
    return { sandbox, stores, floor, bin, servers, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * A run with the CPU the rest of the machine spent on its calls: the platform's (the sandbox process, which
 * answers a status read) and the clients' (this process), per call in ms, beside the server's.
 */
async function besideTheServer(sandbox, run) {
  const platformBefore = await processCpuSeconds(sandbox.pid);
  const clientsBefore = process.cpuUsage();
  const result = await run();
  const platform = (await processCpuSeconds(sandbox.pid)) - platformBefore;
  const clients = process.cpuUsage(clientsBefore);
  return {
    ...result,
    platformCpuPerCallMs: (platform * 1000) / result.calls,
    clientCpuPerCallMs: (clients.user + clients.system) / 1000 / result.calls,
  };
}

export async function measureHosted() {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'polymodal-bench-hosted-'));
  let prepared;
  try {
    prepared = await prepare(scratch);
    const { sandbox, stores, floor } = prepared;
    // Untimed: every process compiles its hot paths before the first round (the floor's too).
    for (const protocol of PROTOCOLS) {
      const warmUp = { clients: 20, protocol, seconds: WARM_UP_SECONDS };
      await runClosedLoop(floor, { ...warmUp, ...FLOOR_CALL });
      for (const kind of KINDS) {
        for (const store of stores) await runClosedLoop(store.server, { ...warmUp, ...callsOf(store)[kind] });
      }
    }
    const loadBefore = os.loadavg();
    const runs = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const protocol of PROTOCOLS) {
        for (const clients of CLIENT_COUNTS) {
          const run = { clients, protocol, seconds: RUN_SECONDS };
          const floorRun = await besideTheServer(sandbox, () =>
            runClosedLoop(floor, { ...run, ...FLOOR_CALL }),
          );
          runs.push({ round, protocol, clients, kind: 'floor', store: '—', ...floorRun });
          for (const kind of KINDS) {
            for (const store of stores) {
              const readsBefore = await meetingReads(sandbox);
              const measured = await besideTheServer(sandbox, () =>
                runClosedLoop(store.server, { ...run, ...callsOf(store)[kind] }),
              );
              const reads = (await meetingReads(sandbox)) - readsBefore;
              runs.push({
                round,
                protocol,
                clients,
                kind,
                store: store.label,
                reads,
                floor: floorRun,
                ...measured,
              });
            }
          }
        }
      }
    }
    return {
      jobs: JOBS,
      rounds: ROUNDS,
      seconds: RUN_SECONDS,
      protocols: PROTOCOLS,
      loadBefore,
      loadAfter: os.loadavg(),
      runs,
    };
  } finally {
    await prepared?.stop();
    await rm(scratch, { recursive: true, force: true });
  }
}

/** One .cpuprofile per call kind (file store, 20 clients) in `dir`, named after the kind. */
export async function profileHosted(dir) {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'polymodal-bench-hosted-'));
  await mkdir(dir, { recursive: true });
  let prepared;
  try {
    prepared = await prepare(scratch);
    const store =
      prepared.stores.find((candidate) => candidate.label === process.env.BENCH_HOSTED_PROFILE_STORE) ??
      prepared.stores[0];
    for (const kind of KINDS) {
      const kindDir = path.join(scratch, `profile-${kind}`);
      const server = await startHttpServer(
        prepared.bin,
        store.env,
        [],
        ['--cpu-prof', `--cpu-prof-dir=${kindDir}`],
      );
      try {
        const run = await runClosedLoop(server, {
          clients: 20,
          protocol: PROTOCOLS[0],
          seconds: RUN_SECONDS,
          ...callsOf({ ...store, server })[kind],
        });
        process.stderr.write(
          `${kind}: ${run.calls} calls, ${run.cpuPerCallMs.toFixed(2)} ms CPU per call, ${run.failures.length} failures${run.failures.length > 0 ? ` (first: ${run.failures[0].slice(0, 300)})` : ''}\n`,
        );
      } finally {
        await server.stop();
      }
      const [profile] = await readdir(kindDir);
      await rename(path.join(kindDir, profile), path.join(dir, `${kind}.cpuprofile`));
    }
  } finally {
    await prepared?.stop();
    await rm(scratch, { recursive: true, force: true });
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** The wrong answers and errors of `runs`, in bold when there are any. */
function wrong(runs) {
  const count = runs.reduce((sum, run) => sum + run.failures.length, 0);
  return count > 0 ? `**${count}**` : '0';
}

/** The 20-client rows of the machine's CPU per call: server, platform, clients (see the report). */
function machineRows(runs, protocols) {
  const us = (values) => median(values) * 1000;
  // One server process, its work nearly all on its one JavaScript thread: at most 1 s of its CPU per second.
  const serverBound = (run) => 1000 / run.cpuPerCallMs / run.floor.perSecond;
  const rows = [];
  for (const protocol of protocols) {
    const at20 = runs.filter((run) => run.clients === 20 && run.protocol === protocol);
    const floorRuns = at20.filter((run) => run.kind === 'floor');
    const floorWhole = us(
      floorRuns.map((run) => run.cpuPerCallMs + run.platformCpuPerCallMs + run.clientCpuPerCallMs),
    );
    rows.push(
      `| floor | — | ${protocol} | ${us(floorRuns.map((run) => run.cpuPerCallMs)).toFixed(0)} | ${us(floorRuns.map((run) => run.platformCpuPerCallMs)).toFixed(0)} | ${us(floorRuns.map((run) => run.clientCpuPerCallMs)).toFixed(0)} | ${floorWhole.toFixed(0)} | — | — | ${median(floorRuns.map((run) => 1000 / run.cpuPerCallMs / run.perSecond)).toFixed(2)} | — |`,
    );
    for (const kind of KINDS) {
      for (const store of ['file', 'PostgreSQL']) {
        const mine = at20.filter((run) => run.kind === kind && run.store === store);
        const whole = us(
          mine.map((run) => run.cpuPerCallMs + run.platformCpuPerCallMs + run.clientCpuPerCallMs),
        );
        const measured = median(mine.map((run) => run.perSecond / run.floor.perSecond));
        rows.push(
          `| \`${kind}\` | ${store} | ${protocol} | ${us(mine.map((run) => run.cpuPerCallMs)).toFixed(0)} | ${us(mine.map((run) => run.platformCpuPerCallMs)).toFixed(0)} | ${us(mine.map((run) => run.clientCpuPerCallMs)).toFixed(0)} | ${whole.toFixed(0)} | ${(whole / floorWhole).toFixed(2)} | ${(floorWhole / whole).toFixed(2)} | ${median(mine.map(serverBound)).toFixed(2)} | ${measured.toFixed(2)} |`,
        );
      }
    }
  }
  return rows;
}

export function hostedReport({ jobs, rounds, seconds, protocols, loadBefore, loadAfter, runs }) {
  const rows = [];
  const verdicts = [];
  const floorRows = protocols.flatMap((protocol) =>
    CLIENT_COUNTS.map((clients) => {
      const floorRuns = runs.filter(
        (run) => run.kind === 'floor' && run.protocol === protocol && run.clients === clients,
      );
      return `| floor (one tool, bare SDK) | — | ${protocol} | ${clients} | ${(median(floorRuns.map((run) => run.cpuPerCallMs)) * 1000).toFixed(0)} | — | ${median(floorRuns.map((run) => run.perSecond)).toFixed(0)} | — | — | ${wrong(floorRuns)} |`;
    }),
  );
  for (const kind of KINDS) {
    for (const store of ['file', 'PostgreSQL']) {
      for (const protocol of protocols) {
        for (const clients of CLIENT_COUNTS) {
          const mine = runs.filter(
            (run) =>
              run.kind === kind &&
              run.store === store &&
              run.protocol === protocol &&
              run.clients === clients,
          );
          const cpuRatios = mine.map((run) => run.cpuPerCallMs / run.floor.cpuPerCallMs);
          const rateRatios = mine.map((run) => run.perSecond / run.floor.perSecond);
          const cpuRatio = median(cpuRatios);
          const rateRatio = median(rateRatios);
          const reads =
            kind === 'get_meeting_running'
              ? ` (${mine.reduce((sum, run) => sum + run.reads, 0)} status reads / ${mine.reduce((sum, run) => sum + run.calls, 0)} calls)`
              : '';
          rows.push(
            `| \`${kind}\`${reads} | ${store} | ${protocol} | ${clients} | ${(median(mine.map((run) => run.cpuPerCallMs)) * 1000).toFixed(0)} | **${cpuRatio.toFixed(2)}** (${cpuRatios.map((ratio) => ratio.toFixed(2)).join(', ')}) | ${median(mine.map((run) => run.perSecond)).toFixed(0)} | ${rateRatio.toFixed(2)} (${rateRatios.map((ratio) => ratio.toFixed(2)).join(', ')}) | ${cpuRatio <= CPU_TARGETS[kind] ? 'yes' : '**no**'}${clients === 20 ? ` / ${rateRatio >= THROUGHPUT_TARGET ? 'yes' : '**no**'}` : ''} | ${wrong(mine)} |`,
          );
          // Wrong answers void the figures of their call, whatever they say.
          const answeredRight = mine.every((run) => run.failures.length === 0);
          verdicts.push(
            answeredRight &&
              cpuRatio <= CPU_TARGETS[kind] &&
              (clients === 1 || rateRatio >= THROUGHPUT_TARGET),
          );
        }
      }
    }
  }
  // A cost figure of calls that answered wrongly means nothing: the run says so at the top of its section and
  // ends with a failing exit status, the table and its figures printed all the same.
  const wrongAnswers = runs.reduce((sum, run) => sum + run.failures.length, 0);
  if (wrongAnswers > 0) {
    process.exitCode = 1;
    process.stderr.write(
      `hosted: ${wrongAnswers} wrong answer(s) or error(s), listed under the section's table\n`,
    );
  }
  const failures = [
    ...new Set(
      runs.flatMap((run) =>
        run.failures.map(
          (text) => `${run.kind}, ${run.store}, ${run.protocol}, ${run.clients}: ${text.slice(0, 160)}`,
        ),
      ),
    ),
  ].slice(0, 5);
  return `### Hosted cost per call beside a bare SDK server (issue 24; stateless Streamable HTTP, one server process each)

${wrongAnswers > 0 ? `**Wrong answers or errors: ${wrongAnswers}** (listed below the table); the figures of those calls do not count.\n\n` : ''}The meeting server with the file ledger and with PostgreSQL (embedded, fsync on), and the floor: a one-tool
server on the same SDK (\`createMcpHandler\` with \`legacy: 'stateless'\`: a server per POST for either
generation; ~1 KB structured result with an output schema). Clients of each generation: the SDK's default
(2025-11-25 \`initialize\`, served statelessly) and one pinned to 2026-07-28. Each server first takes ${WARM_UP_SECONDS} s of untimed calls per kind. ${jobs} jobs per store recorded through real calls; the sandbox clock held after the first finished, so
the running reads cycle over 99 unfinished jobs with \`POLYMODAL_POLL_INTERVAL_MS=${POLL_INTERVAL_MS}\`. ${rounds} rounds;
in each, for each generation (${protocols.join(', ')}) and 1 then 20 closed-loop SDK clients, ${seconds} s of the floor
then ${seconds} s of each call and store.
Server CPU is the process's utime + stime over the run (10 ms ticks) divided by its calls; ratios are to
the floor of the same round, generation and client count (per round in parentheses; bold: median). Load average
(1/5/15 min) before ${loadBefore.map((value) => value.toFixed(1)).join('/')}, after ${loadAfter.map((value) => value.toFixed(1)).join('/')}; clients, sandbox and PostgreSQL share the 2 cores.

| Call | Store | Protocol | Clients | CPU/call (µs) | CPU / floor | Calls/s | Calls/s / floor | Target met (CPU ≤ ${CPU_TARGETS.list_jobs}×, running ≤ ${CPU_TARGETS.get_meeting_running}×; 20 clients: calls/s ≥ ${THROUGHPUT_TARGET}×) | Wrong answers or errors |
|---|---|---|---:|---:|---:|---:|---:|---|---:|
${[...floorRows, ...rows].join('\n')}

Targets met: ${verdicts.filter(Boolean).length} of ${verdicts.length}.

Where a call's CPU goes on the machine, 20 clients (medians, µs per call): the server's, the platform's (the
sandbox process answering status reads), the clients' (the bench process); PostgreSQL's own processes are not
counted. Two bounds on calls/s, as ratios to the floor's calls/s: on 2 cores, at most 2 s of CPU per second over
the whole per call (whatever the server does); and one server process, its work nearly all on its one JavaScript
thread, at most 1 s of its own CPU per second over its CPU per call (for the floor: that bound over its own
calls/s, how close it runs to it).

| Call | Store | Protocol | Server | Platform | Clients | Whole | Whole / floor's | Bound by 2 cores / floor | Bound by the server's thread / floor | Measured calls/s / floor |
|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|
${machineRows(runs, protocols).join('\n')}
${failures.length > 0 ? `\nFailures:\n${failures.map((text) => `- ${text}`).join('\n')}\n` : ''}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.env.BENCH_HOSTED_PROFILE) await profileHosted(path.resolve(process.env.BENCH_HOSTED_PROFILE));
  else process.stdout.write(`${hostedReport(await measureHosted())}\n`);
}
