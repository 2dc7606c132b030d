/**
 * Shared by scripts/pack-smoke.mjs and scripts/build-bundles.mjs: bounded child processes (every one killed
 * when the script exits, whatever the reason), the sandbox started as its own process, and an MCP client over
 * stdio that lists the tools and makes calls the way a host does. Nothing here prints on stdout except the
 * scripts' own progress lines.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
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

function killAll() {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  children.clear();
}

process.on('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    killAll();
    process.exit(130);
  });
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
 * Runs a command to completion with a time limit; resolves with its output, rejects with the tail of its
 * output when it fails or times out (the child is killed).
 */
export function run(command, args, { cwd = ROOT, env = process.env, timeoutMs = 120_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`${command} ${args.join(' ')} took over ${timeoutMs / 1000} s\n${output.slice(-4000)}`),
      );
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      children.delete(child);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      if (code === 0) resolve(output);
      else
        reject(
          new Error(
            `${command} ${args.join(' ')} failed (${signal ?? `exit ${code}`}) in ${cwd}\n${output.slice(-4000)}`,
          ),
        );
    });
  });
}

/**
 * Starts the sandbox CLI (`polymodal-sandbox --port 0`) with the given node and reads the base URL and key
 * from the three lines it prints. Fast job progression keeps the smoke's one real summary short.
 */
export async function startSandboxProcess({ node, cli, env = process.env }) {
  const child = spawn(node, [cli, '--port', '0', '--speed', '100'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
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
    /** Requests the sandbox has logged (its control route), to prove a tool call reached the platform. */
    async requestCount() {
      const response = await fetch(new URL('/__sandbox/requests', values.POLYMODAL_BASE_URL));
      const body = await response.json();
      return body.requests.filter(
        (request) => !String(request.path ?? request.url ?? '').startsWith('/__sandbox'),
      ).length;
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const closed = new Promise((resolve) => child.once('close', resolve));
      child.kill('SIGTERM');
      await withTimeout(closed, 5_000, 'stopping the sandbox').catch(() => child.kill('SIGKILL'));
      children.delete(child);
    },
  };
}

/** The MCP SDK client from the workspace (the same 1.x the servers use), loaded once. */
let sdk;
async function loadSdk() {
  if (sdk) return sdk;
  const directory = path.join(ROOT, 'packages', 'mcp', 'node_modules', '@modelcontextprotocol', 'sdk');
  if (!existsSync(directory)) {
    throw new Error(`${directory} is missing: run pnpm install at the repository root first`);
  }
  const load = (file) => import(pathToFileURL(path.join(directory, 'dist', 'esm', 'client', file)).href);
  const [{ Client }, { StdioClientTransport }] = await Promise.all([load('index.js'), load('stdio.js')]);
  sdk = { Client, StdioClientTransport };
  return sdk;
}

/**
 * Connects to a stdio server the way a host does (command, args, env; stderr kept for the failure message)
 * and returns the client with its tool list. Closing the client ends the server process.
 */
export async function connectStdio({ command, args = [], env, cwd, label }) {
  const { Client, StdioClientTransport } = await loadSdk();
  const transport = new StdioClientTransport({ command, args, env, cwd, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const client = new Client({ name: 'polymodal-smoke', version: '1.0.0' });
  try {
    await withTimeout(client.connect(transport), 20_000, `${label}: initialize`);
    const { tools } = await withTimeout(client.listTools(), 10_000, `${label}: tools/list`);
    return {
      client,
      tools,
      stderr: () => stderr,
      async call(name, args = {}, timeoutMs = 30_000) {
        const result = await withTimeout(
          client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs }),
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
