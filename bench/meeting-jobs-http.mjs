// Meeting jobs recorded through real calls, and timed tool calls from many clients, for the service
// sections (list-jobs-load.mjs, store-latency.mjs, hosted.mjs) against a meeting server over Streamable
// HTTP; and the two meeting servers of the store sections, one per ledger store.
import { link, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { writeMeetingRecording } from '@polymodal/sandbox';
import {
  call,
  inBatches,
  initialize,
  keepAliveAgent,
  percentile,
  startHttpServer,
} from './http-server-process.mjs';
import { SHORT_SCRIPT } from './meeting-server.mjs';
import { binOf } from './sandbox-process.mjs';

/**
 * `count` recordings in `dir`: one short meeting written once, hard-linked under `count` names, so each
 * is its own file to the server (its own path, so its own ledger entry) without `count` times the disk.
 */
export async function writeRecordings(dir, count) {
  await mkdir(dir, { recursive: true });
  const original = path.join(dir, 'meeting-000.wav');
  await writeMeetingRecording(original, { script: SHORT_SCRIPT });
  const files = [original];
  for (let index = 1; index < count; index++) {
    const file = path.join(dir, `meeting-${String(index).padStart(3, '0')}.wav`);
    await link(original, file);
    files.push(file);
  }
  return files;
}

/** A tool call's answer, `{isError, text, structured}`; throws on a protocol error. */
export async function callTool(url, agent, name, args, sessionId) {
  const result = await call(url, agent, 'tools/call', { name, arguments: args }, sessionId);
  return {
    isError: result.isError === true,
    text: (result.content ?? []).map((part) => part.text ?? '').join('\n'),
    structured: result.structuredContent ?? {},
  };
}

/**
 * Records one meeting job per file, as an agent starts them: `summarize_meeting` with `waitSeconds: 0`
 * (upload, create, first read), 4 at a time. Throws unless every call answered a job id.
 */
export async function recordJobs(url, files) {
  const agent = keepAliveAgent(4);
  try {
    const sessionId = await initialize(url, agent, 'bench-seed');
    const jobIds = new Set();
    await inBatches(files.length, 4, async (index) => {
      const answer = await callTool(
        url,
        agent,
        'summarize_meeting',
        { path: files[index], waitSeconds: 0 },
        sessionId,
      );
      if (answer.isError || !answer.structured.jobId) {
        throw new Error(`summarize_meeting of ${path.basename(files[index])} failed: ${answer.text}`);
      }
      jobIds.add(answer.structured.jobId);
    });
    if (jobIds.size !== files.length) throw new Error(`${files.length} recordings gave ${jobIds.size} jobs`);
    return [...jobIds];
  } finally {
    agent.destroy();
  }
}

/** Follows the meeting job of `file` to completion through `summarize_meeting`; resolves its id. */
export async function finishJob(url, file) {
  const agent = keepAliveAgent(1);
  try {
    const sessionId = await initialize(url, agent, 'bench-finish');
    for (let attempt = 0; attempt < 5; attempt++) {
      const answer = await callTool(
        url,
        agent,
        'summarize_meeting',
        { path: file, waitSeconds: 20 },
        sessionId,
      );
      if (answer.isError) throw new Error(`summarize_meeting failed: ${answer.text}`);
      if (answer.structured.done === true) return answer.structured.jobId;
    }
    throw new Error('the meeting job did not finish within 5 calls');
  } finally {
    agent.destroy();
  }
}

/**
 * `clients` clients at once, each on its own connection: `initialize` + `notifications/initialized`,
 * then `calls` tool calls one after the other. Only the tool calls are timed. `check(answer)` returns
 * an error text for a wrong answer (counted, never thrown, so that one bad answer does not hide the rest).
 */
export async function timeToolCalls(url, { clients, calls, name, args, check }) {
  const agent = keepAliveAgent(clients);
  const latencies = [];
  const failures = [];
  try {
    const sessions = await Promise.all(
      Array.from({ length: clients }, (_, index) => initialize(url, agent, `bench-${index}`)),
    );
    const started = performance.now();
    await Promise.all(
      sessions.map(async (sessionId) => {
        for (let index = 0; index < calls; index++) {
          const callStarted = performance.now();
          try {
            const answer = await callTool(url, agent, name, args, sessionId);
            latencies.push(performance.now() - callStarted);
            const problem = answer.isError ? answer.text : check?.(answer);
            if (problem) failures.push(problem);
          } catch (error) {
            failures.push(error instanceof Error ? error.message : String(error));
          }
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    return {
      clients,
      calls: clients * calls,
      seconds,
      perSecond: latencies.length / seconds,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: Math.max(...latencies),
      failures,
    };
  } finally {
    agent.destroy();
  }
}

/** The first distinct failure texts, for the report. */
export const failureSummary = (failures) =>
  [...new Set(failures.map((text) => text.replaceAll('\n', ' ').slice(0, 200)))].slice(0, 3);

/**
 * The meeting server twice over Streamable HTTP, once per store: the file ledger, and PostgreSQL at
 * `postgresUrl`, each on its own sandbox key with `jobs` recordings of its own. Resolves
 * `[{label, files, env, server}]`; the caller stops each `server`, and `started` holds those started so far.
 */
export async function startStoreServers({
  sandbox,
  postgresUrl,
  scratch,
  jobs,
  labels,
  pollIntervalMs,
  started,
}) {
  const bin = binOf('@polymodal/mcp-meeting', 'polymodal-mcp-meeting');
  const stores = [
    { label: labels[0], key: sandbox.env.POLYMODAL_API_KEY, env: {} },
    { label: labels[1], key: sandbox.env.POLYMODAL_API_KEY_2, env: { POLYMODAL_DATABASE_URL: postgresUrl } },
  ];
  for (const [index, store] of stores.entries()) {
    const mediaDir = path.join(scratch, `media-${index}`);
    store.files = await writeRecordings(mediaDir, jobs);
    store.env = {
      POLYMODAL_BASE_URL: sandbox.baseUrl,
      POLYMODAL_API_KEY: store.key,
      POLYMODAL_STATE_DIR: path.join(scratch, `state-${index}`),
      POLYMODAL_ALLOWED_DIRS: mediaDir,
      POLYMODAL_OUTPUT_DIR: path.join(scratch, `out-${index}`),
      POLYMODAL_POLL_INTERVAL_MS: String(pollIntervalMs),
      ...store.env,
    };
    store.server = await startHttpServer(bin, store.env);
    started.push(store.server);
  }
  return stores;
}
