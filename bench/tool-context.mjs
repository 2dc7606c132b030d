#!/usr/bin/env node
// What a host pays for each Polymodal server before the model does anything (issue 14): spawn → initialize
// beside the one-tool floor (alternated, so machine noise hits both alike), resident memory after the first
// `tools/list`, the bytes every tool puts into the model's context on every turn, and the warm `tools/list`
// round trip, from a 2025-11-25 client and from one pinned to 2026-07-28 (each server answers both, as
// `serveStdio` serves them). Each server is spawned over stdio against a sandbox in a separate process; nothing
// leaves loopback and the number of spawns and calls is fixed. Imported by run.mjs; run alone,
// `node tool-context.mjs` prints its section of the report.
//
// The floor is bundled in the same run, with the esbuild the servers' bins are built with (tsup's), into one
// file: a floor loaded from node_modules (hundreds of SDK and zod files) would flatter every ratio.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { z } from 'zod';
import { processCpuSeconds, residentMib } from './proc-stats.mjs';
import { startSandboxProcess } from './sandbox-process.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The esbuild that tsup (a root devDependency) runs on, so the floor and the bins share a bundler. */
const esbuild = createRequire(fileURLToPath(import.meta.resolve('tsup')))('esbuild');
const STARTUP_RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 10);
const WARM_CALLS = 50;
/** Calls in a row whose server CPU is read (the clock ticks every 10 ms: 500 calls resolve 0.02 ms). */
const SERVER_CPU_CALLS = 500;
/** A client of the 2026-07-28 protocol generation (the default client opens with 2025-11-25 `initialize`). */
export const MODERN_CLIENT = { versionNegotiation: { mode: { pin: '2026-07-28' } } };

/** The issue's targets, printed beside the figures. */
export const TARGETS = {
  startupRatio: 1.2,
  rssMib: 60,
  averageToolBytes: 650,
  maximumToolBytes: 1200,
  listBytesPerTool: 1500,
  warmListMs: 1,
  invalidCallMs: 10,
};
/** Calls with invalid arguments timed per server (after one untimed). */
const INVALID_CALLS = 20;

/** The bin of a workspace package, by folder: bench depends on the meeting server only. */
function workspaceBin(folder, binName) {
  const root = path.join(here, '..', 'packages', folder);
  return readFile(path.join(root, 'package.json'), 'utf8').then((text) =>
    path.join(root, JSON.parse(text).bin[binName]),
  );
}

const SERVERS = [
  { label: 'polymodal-mcp-meeting', folder: 'mcp-meeting' },
  { label: 'polymodal-mcp-media', folder: 'mcp-media' },
  { label: 'polymodal-mcp-speech', folder: 'mcp-speech' },
  { label: 'polymodal-mcp', folder: 'mcp', note: 'combined, all toolsets' },
];

/**
 * one-tool-server.mjs with the SDK and zod bundled into one ESM file in `directory`: the issue's floor, a
 * one-tool server as small as this SDK allows, serving both protocol generations (`serveStdio`) as the bins
 * do. Returns the file's path.
 */
export async function buildOneToolFloor(directory) {
  const outfile = path.join(directory, 'one-tool-server.bundled.mjs');
  await esbuild.build({
    entryPoints: [path.join(here, 'one-tool-server.mjs')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
  });
  return outfile;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

const utf8Bytes = (text) => Buffer.byteLength(text, 'utf8');

/** The SDK client's own listTools also compiles output validators; the raw request measures the server. */
const ANY_RESULT = z.object({ tools: z.array(z.unknown()) }).passthrough();
const listTools = (client) => client.request({ method: 'tools/list' }, ANY_RESULT);

async function connect(bin, env, clientOptions) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin],
    env,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '0.0.0' }, clientOptions);
  await client.connect(transport);
  return { client, transport };
}

/** The server's CPU per `call()` in ms, over SERVER_CPU_CALLS calls in a row. */
async function serverCpuMs(pid, call) {
  const before = await processCpuSeconds(pid);
  for (let index = 0; index < SERVER_CPU_CALLS; index++) await call();
  return (((await processCpuSeconds(pid)) - before) * 1000) / SERVER_CPU_CALLS;
}

/**
 * A warm `tools/list` from a 2026-07-28 client, on a server spawned for it: the server's CPU per call and the
 * round trip (median of WARM_CALLS after the first). The generation has no `ping` to set beside it.
 */
async function measureModernList(bin, env) {
  const { client, transport } = await connect(bin, env, MODERN_CLIENT);
  try {
    await listTools(client);
    const warm = [];
    for (let call = 0; call < WARM_CALLS; call++) {
      const started = performance.now();
      await listTools(client);
      warm.push(performance.now() - started);
    }
    return {
      modernListCpuMs: await serverCpuMs(transport.pid, () => listTools(client)),
      modernWarmMs: median(warm),
    };
  } finally {
    await client.close();
  }
}

/** One spawn: the time to the initialize answer, then the RSS right after a first tools/list. */
async function startOnce(bin, env) {
  const started = performance.now();
  const { client, transport } = await connect(bin, env);
  const elapsed = performance.now() - started;
  await listTools(client);
  const rssMib = await residentMib(transport.pid);
  await client.close();
  return { elapsed, rssMib };
}

/**
 * A call that its arguments make invalid: the first tool with required arguments, called with none. The
 * server must refuse it before anything reaches the platform; its median round trip and the requests the
 * sandbox logged meanwhile (all routes) are returned.
 */
async function measureInvalidCalls(client, tools, sandbox) {
  const tool = tools.find((candidate) => (candidate.inputSchema?.required ?? []).length > 0);
  if (!tool) return { invalidTool: undefined, invalidMs: undefined, invalidRequests: undefined };
  const logged = async () => (await sandbox.control.requests({ method: '', path: '' })).length;
  const before = await logged();
  const times = [];
  for (let call = 0; call <= INVALID_CALLS; call++) {
    const started = performance.now();
    const result = await client.request(
      { method: 'tools/call', params: { name: tool.name, arguments: {} } },
      z.object({ isError: z.boolean().optional() }).passthrough(),
    );
    if (call > 0) times.push(performance.now() - started);
    if (result.isError !== true) throw new Error(`${tool.name} with no arguments was not refused`);
  }
  return { invalidTool: tool.name, invalidMs: median(times), invalidRequests: (await logged()) - before };
}

/** One session: the first tools/list, RSS right after it, the bytes of the list, then warm calls. */
async function measureSession(bin, env, sandbox, { invalidCalls }) {
  const { client, transport } = await connect(bin, env);
  try {
    const firstStarted = performance.now();
    const first = await listTools(client);
    const firstMs = performance.now() - firstStarted;
    const rssMib = await residentMib(transport.pid);
    const warm = [];
    const pings = [];
    for (let call = 0; call < WARM_CALLS; call++) {
      const started = performance.now();
      await listTools(client);
      warm.push(performance.now() - started);
      // The same round trip with nothing to build or carry: what stdio and the client add to any answer.
      const pinged = performance.now();
      await client.ping();
      pings.push(performance.now() - pinged);
    }
    // The server's own cost of an answer (the target is server side): its CPU over many calls in a row,
    // beside as many pings (reading a request and writing an answer at all).
    const listCpuMs = await serverCpuMs(transport.pid, () => listTools(client));
    const pingCpuMs = await serverCpuMs(transport.pid, () => client.ping());
    const tools = first.tools.map((tool) => ({
      name: tool.name,
      // What a host puts into the model's context for the tool: its name, description and input schema.
      bytes:
        utf8Bytes(tool.name) +
        utf8Bytes(tool.description ?? '') +
        utf8Bytes(JSON.stringify(tool.inputSchema)),
    }));
    const visible = tools.map((tool) => tool.bytes);
    const invalid = invalidCalls ? await measureInvalidCalls(client, first.tools, sandbox) : {};
    return {
      ...invalid,
      toolCount: tools.length,
      firstMs,
      warmMs: median(warm),
      pingMs: median(pings),
      listCpuMs,
      pingCpuMs,
      rssMib,
      averageBytes: visible.reduce((sum, bytes) => sum + bytes, 0) / Math.max(1, tools.length),
      maximumBytes: Math.max(0, ...visible),
      overLimit: tools.filter((tool) => tool.bytes > TARGETS.maximumToolBytes),
      listBytesPerTool: utf8Bytes(JSON.stringify(first)) / Math.max(1, tools.length),
    };
  } finally {
    await client.close();
  }
}

export async function measureToolContext() {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'polymodal-bench-tool-context-'));
  let sandbox;
  try {
    sandbox = await startSandboxProcess();
    const env = {
      PATH: process.env.PATH ?? '',
      POLYMODAL_BASE_URL: sandbox.env.POLYMODAL_BASE_URL,
      POLYMODAL_API_KEY: sandbox.env.POLYMODAL_API_KEY,
      POLYMODAL_ALLOWED_DIRS: scratch,
      POLYMODAL_OUTPUT_DIR: path.join(scratch, 'out'),
      POLYMODAL_STATE_DIR: path.join(scratch, 'state'),
    };
    const floor = {
      label: 'one-tool server, same SDK, bundled (floor)',
      bin: await buildOneToolFloor(scratch),
    };
    const servers = await Promise.all(
      SERVERS.map(async (server) => ({
        ...server,
        bin: await workspaceBin(server.folder, server.label),
      })),
    );
    const startup = new Map([floor, ...servers].map((server) => [server.label, []]));
    // The floor runs between every two servers, so each server's ratio compares neighbouring spawns.
    for (let run = 0; run < STARTUP_RUNS; run++) {
      for (const server of servers) {
        startup.get(floor.label).push(await startOnce(floor.bin, env));
        startup.get(server.label).push(await startOnce(server.bin, env));
      }
    }
    const floorMs = median(startup.get(floor.label).map((spawn) => spawn.elapsed));
    const rows = [];
    for (const server of [floor, ...servers]) {
      // The floor's one tool takes no arguments.
      const session = await measureSession(server.bin, env, sandbox, { invalidCalls: server !== floor });
      const modern = await measureModernList(server.bin, env);
      const spawns = startup.get(server.label);
      const startupMs = median(spawns.map((spawn) => spawn.elapsed));
      // RSS right after the first tools/list moves by about 3 MiB from spawn to spawn (whether V8 has
      // compiled or collected yet): the median over the spawns, with their range.
      const rss = spawns.map((spawn) => spawn.rssMib).filter((value) => value !== null);
      rows.push({
        ...server,
        ...session,
        ...modern,
        ...(rss.length === 0
          ? {}
          : { rssMib: median(rss), rssMinMib: Math.min(...rss), rssMaxMib: Math.max(...rss) }),
        startupMs,
        startupRatio: startupMs / floorMs,
      });
    }
    return { rows, floorLabel: floor.label, runs: STARTUP_RUNS, floorSpawns: STARTUP_RUNS * servers.length };
  } finally {
    await sandbox?.stop();
    await rm(scratch, { recursive: true, force: true });
  }
}

const mark = (value, target) => (value <= target ? '' : ' ✗');

export function toolContextReport({ rows, floorLabel, runs, floorSpawns }) {
  const format = (row) => {
    const isFloor = row.label === floorLabel;
    const name = row.note ? `${row.label} (${row.note})` : row.label;
    const rss =
      row.rssMib === null
        ? 'n/a'
        : `${row.rssMib.toFixed(1)}${isFloor ? '' : mark(row.rssMib, TARGETS.rssMib)}${row.rssMinMib === undefined ? '' : ` (${row.rssMinMib.toFixed(1)}–${row.rssMaxMib.toFixed(1)})`}`;
    return [
      name,
      row.toolCount,
      row.startupMs.toFixed(0),
      isFloor ? '1.00' : `${row.startupRatio.toFixed(2)}${mark(row.startupRatio, TARGETS.startupRatio)}`,
      rss,
      isFloor
        ? row.averageBytes.toFixed(0)
        : `${row.averageBytes.toFixed(0)}${mark(row.averageBytes, TARGETS.averageToolBytes)}`,
      isFloor ? row.maximumBytes : `${row.maximumBytes}${mark(row.maximumBytes, TARGETS.maximumToolBytes)}`,
      isFloor
        ? row.listBytesPerTool.toFixed(0)
        : `${row.listBytesPerTool.toFixed(0)}${mark(row.listBytesPerTool, TARGETS.listBytesPerTool)}`,
      row.firstMs.toFixed(1),
      `${row.listCpuMs.toFixed(2)}${mark(row.listCpuMs, TARGETS.warmListMs)} (ping ${row.pingCpuMs.toFixed(2)}); ${row.warmMs.toFixed(2)} (ping ${row.pingMs.toFixed(2)})`,
      `${row.modernListCpuMs.toFixed(2)}${mark(row.modernListCpuMs, TARGETS.warmListMs)}; ${row.modernWarmMs.toFixed(2)}`,
      row.invalidMs === undefined
        ? 'n/a'
        : `${row.invalidMs.toFixed(1)}${mark(row.invalidMs, TARGETS.invalidCallMs)} (\`${row.invalidTool}\`, ${row.invalidRequests} requests${row.invalidRequests === 0 ? '' : ' ✗'})`,
    ];
  };
  // The combined server lists the same tools again: name each tool once.
  const over = new Map(
    rows
      .filter((row) => row.label !== floorLabel)
      .flatMap((row) => row.overLimit.map((tool) => [tool.name, tool.bytes])),
  );
  const overall = [...over].map(([name, bytes]) => `\`${name}\` ${bytes} B`);
  return `### Tool context: start-up, memory and what the model sees per tool (sandbox in a separate process)

Spawn → initialize is the median of ${runs} spawns per server, each right after a spawn of the floor (the
floor's median over its ${floorSpawns} spawns); RSS is the server's VmRSS right after its first \`tools/list\`,
the median over the same spawns (min–max);
model-visible bytes per tool are the UTF-8 bytes of name + description + JSON of inputSchema; whole
\`tools/list\` is the JSON result over the tool count; a warm \`tools/list\` is given twice: the server's CPU per
call over ${SERVER_CPU_CALLS} calls in a row (the target: server side), beside its CPU per \`ping\` (reading a request and
writing an answer at all), then the round trip at the client, the median of ${WARM_CALLS} calls after the first, over
stdio (not validated by the client), beside a \`ping\` round trip (the list's own JSON, 15–40 KB, adds its
transfer and the client's parse), from a 2025-11-25 client; the same from a client pinned to 2026-07-28 (a spawn
of its own; that generation has no \`ping\`);
the invalid-arguments call is the median of ${INVALID_CALLS} calls (after one) of the server's first tool with
required arguments, given none, with the requests the sandbox logged meanwhile (target 0).
✗ marks a figure over the issue 14 target.

| Server | Tools | Spawn → initialize (ms) | / floor (≤ ${TARGETS.startupRatio}) | RSS after tools/list (MiB, ≤ ${TARGETS.rssMib}) | Model-visible B per tool, average (≤ ${TARGETS.averageToolBytes}) | Largest tool (B, ≤ ${TARGETS.maximumToolBytes}) | Whole tools/list B per tool (≤ ${TARGETS.listBytesPerTool}) | First tools/list (ms) | Warm tools/list, 2025-11-25 (ms): server CPU (≤ ${TARGETS.warmListMs}; ping's); round trip (ping's) | Warm tools/list, 2026-07-28 (ms): server CPU (≤ ${TARGETS.warmListMs}); round trip | Invalid-arguments call (ms, ≤ ${TARGETS.invalidCallMs}; requests) |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${rows.map((row) => `| ${format(row).join(' | ')} |`).join('\n')}

Tools over ${TARGETS.maximumToolBytes} model-visible bytes: ${overall.length === 0 ? 'none' : overall.join(', ')}.
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${toolContextReport(await measureToolContext())}\n`);
}
