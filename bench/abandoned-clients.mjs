#!/usr/bin/env node
// Memory after abandoned clients (issue 12: "10,000 clients that never send DELETE leave RSS within 50 MiB
// of the start"). One meeting server process over Streamable HTTP (`--http --port 0`, loopback) per mode;
// 10,000 clients, 50 at a time, each sends what an SDK client sends to start (`initialize`,
// `notifications/initialized`) and one `tools/list`, then disappears without DELETE. Raw POSTs on a
// keep-alive agent for speed; a few real SDK clients (StreamableHTTPClientTransport, closed without
// terminateSession) go the same way and must list the same tools. The server's VmRSS is read from
// /proc/<pid>/status after the first tools/list, after the last client, and after a quiet period; VmHWM
// is the peak. Modes: stateless (the default), legacy sessions with the defaults (cap 1,000, idle 30 min),
// and legacy sessions with a 10 s idle time so the quiet period lets the sweep close them. The sandbox
// runs as a separate process. Imported by run.mjs; run alone, `node abandoned-clients.mjs` prints its
// section. BENCH_ABANDONED_CLIENTS changes the number of clients.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  call,
  inBatches,
  initialize,
  keepAliveAgent,
  post,
  startHttpServer,
} from './http-server-process.mjs';
import { peakMib, residentMib } from './proc-stats.mjs';
import { binOf, startSandboxProcess } from './sandbox-process.mjs';

export const BUDGET_MIB = 50;
const CLIENTS = Number(process.env.BENCH_ABANDONED_CLIENTS ?? 10_000);
const CONCURRENCY = 50;
const SDK_CLIENTS = 5;
const QUIET_SECONDS = 25;
/** The short idle time of the third mode; its sweep runs every idle time, so 25 s quiet covers two sweeps. */
const SHORT_IDLE_SECONDS = 10;

const MODES = [
  { label: 'stateless (default)', env: {}, clients: CLIENTS },
  {
    label: 'legacy sessions, cap 1,000, idle 30 min (defaults)',
    env: { POLYMODAL_HTTP_SESSIONS: '1' },
    clients: CLIENTS,
  },
  {
    label: `legacy sessions, cap 1,000, idle ${SHORT_IDLE_SECONDS} s`,
    env: { POLYMODAL_HTTP_SESSIONS: '1', POLYMODAL_HTTP_SESSION_IDLE_SECONDS: String(SHORT_IDLE_SECONDS) },
    // Enough to fill the cap: the question is whether the memory comes back once they expire.
    clients: Math.min(CLIENTS, 1_000),
  },
];

/** A real SDK client: connect, list the tools, then close the transport without DELETE (as hosts do). */
async function sdkClientAbandons(url) {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'bench-sdk', version: '0.0.0' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const sessionId = transport.sessionId;
  await transport.close();
  return { tools: tools.length, sessionId };
}

async function measureMode(mode, baseEnv) {
  const bin = binOf('@polymodal/mcp-meeting', 'polymodal-mcp-meeting');
  const server = await startHttpServer(bin, { ...baseEnv, ...mode.env });
  const agent = keepAliveAgent(CONCURRENCY);
  try {
    const firstSession = await initialize(server.url, agent, 'bench-first');
    const { tools } = await call(server.url, agent, 'tools/list', {}, firstSession);
    const startMib = await residentMib(server.pid);
    const started = performance.now();
    let lastSession;
    let wrongLists = 0;
    await inBatches(mode.clients, CONCURRENCY, async (index) => {
      const sessionId = await initialize(server.url, agent, `bench-${index}`);
      const listed = await call(server.url, agent, 'tools/list', {}, sessionId);
      if (listed.tools.length !== tools.length) wrongLists += 1;
      lastSession = sessionId;
    });
    const seconds = (performance.now() - started) / 1000;
    const sdk = [];
    for (let index = 0; index < SDK_CLIENTS; index++) sdk.push(await sdkClientAbandons(server.url));
    const afterMib = await residentMib(server.pid);
    // What a client of a closed session sees: 404 when it was evicted (cap) or expired (idle).
    const firstAfterRun = (
      await post(server.url, agent, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, firstSession)
    ).status;
    agent.destroy();
    await new Promise((resolve) => setTimeout(resolve, QUIET_SECONDS * 1000));
    const quietMib = await residentMib(server.pid);
    const probeAgent = keepAliveAgent(1);
    const lastAfterQuiet = lastSession
      ? (await post(server.url, probeAgent, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, lastSession))
          .status
      : null;
    probeAgent.destroy();
    return {
      label: mode.label,
      clients: mode.clients,
      tools: tools.length,
      seconds,
      startMib,
      afterMib,
      quietMib,
      peakMib: await peakMib(server.pid),
      wrongLists,
      sdkOk: sdk.filter((result) => result.tools === tools.length).length,
      sdkWithSession: sdk.filter((result) => result.sessionId !== undefined).length,
      firstAfterRun: firstSession ? firstAfterRun : null,
      lastAfterQuiet,
    };
  } finally {
    agent.destroy();
    await server.stop();
  }
}

export async function measureAbandonedClients() {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'polymodal-bench-abandoned-'));
  let sandbox;
  try {
    sandbox = await startSandboxProcess();
    const baseEnv = {
      POLYMODAL_BASE_URL: sandbox.baseUrl,
      POLYMODAL_API_KEY: sandbox.env.POLYMODAL_API_KEY,
      POLYMODAL_STATE_DIR: path.join(scratch, 'state'),
      POLYMODAL_ALLOWED_DIRS: scratch,
      POLYMODAL_OUTPUT_DIR: path.join(scratch, 'out'),
    };
    const runs = [];
    for (const mode of MODES) runs.push(await measureMode(mode, baseEnv));
    return { concurrency: CONCURRENCY, sdkClients: SDK_CLIENTS, quietSeconds: QUIET_SECONDS, runs };
  } finally {
    await sandbox?.stop();
    await rm(scratch, { recursive: true, force: true });
  }
}

const mib = (value) => (value === null ? '–' : value.toFixed(0));
const signed = (value) => `${value >= 0 ? '+' : ''}${value.toFixed(0)}`;

export function abandonedClientsReport({ concurrency, sdkClients, quietSeconds, runs }) {
  return `### Memory after abandoned HTTP clients (issue 12; meeting server over Streamable HTTP, sandbox in a separate process)

Each client sends \`initialize\`, \`notifications/initialized\` and one \`tools/list\`, then disappears without
DELETE; ${concurrency} at a time, raw POSTs on a keep-alive agent, then ${sdkClients} real SDK clients closed the same way. RSS is
the server's VmRSS: after its first \`tools/list\` (start), after the last client, and after ${quietSeconds} s without
requests; peak is VmHWM. Budget: start + ${BUDGET_MIB} MiB.

| Mode | Clients | Wall (s) | Clients/s | Start (MiB) | After clients (MiB) | After ${quietSeconds} s quiet (MiB) | Peak (MiB) | Δ after clients vs start | Δ after quiet vs start | Within +${BUDGET_MIB} MiB | First client's session afterwards | Last client's after quiet | SDK clients OK |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|---:|
${runs
  .map((run) => {
    const afterDelta = run.afterMib - run.startMib;
    const quietDelta = run.quietMib - run.startMib;
    const within = Math.max(afterDelta, quietDelta) <= BUDGET_MIB ? 'yes' : '**no**';
    const status = (code) => (code === null ? 'none (stateless)' : `HTTP ${code}`);
    return `| ${run.label} | ${run.clients.toLocaleString('en')} | ${run.seconds.toFixed(1)} | ${(run.clients / run.seconds).toFixed(0)} | ${mib(run.startMib)} | ${mib(run.afterMib)} | ${mib(run.quietMib)} | ${mib(run.peakMib)} | **${signed(afterDelta)}** | **${signed(quietDelta)}** | ${within} | ${status(run.firstAfterRun)} | ${status(run.lastAfterQuiet)} | ${run.sdkOk}/${sdkClients}${run.wrongLists > 0 ? ` (${run.wrongLists} short lists)` : ''} |`;
  })
  .join('\n')}
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${abandonedClientsReport(await measureAbandonedClients())}\n`);
}
