// A server bin over Streamable HTTP in a separate process, as an operator runs it (`--http --port 0`, the
// port read back from the line it prints on stderr), and a raw JSON-RPC client for it: thousands of
// clients need no SDK machinery each, only the POSTs an SDK client sends (the sections check a few with
// the real SDK client too). Also the process's resident memory and latency percentiles.
import { spawn } from 'node:child_process';
import http from 'node:http';
import readline from 'node:readline';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/client';

const STARTUP_TIMEOUT_MS = 30_000;
/** The runner lets requests under way finish for up to 10 s on SIGTERM; after that the process is killed. */
const STOP_TIMEOUT_MS = 15_000;

/**
 * Spawns `node [...nodeArgs] <bin> --http --port 0 [...args]` with exactly `env` (plus PATH) and resolves
 * once it listens. `stop()` sends SIGTERM, then SIGKILL, and waits for the exit; call it in a `finally`.
 */
export async function startHttpServer(bin, env, args = [], nodeArgs = []) {
  const child = spawn(process.execPath, [...nodeArgs, bin, '--http', '--port', '0', ...args], {
    env: { PATH: process.env.PATH ?? '', POLYMODAL_LOG_LEVEL: 'error', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    await exited;
  };
  const stderr = [];
  const lines = readline.createInterface({ input: child.stderr });
  const url = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), STARTUP_TIMEOUT_MS);
    lines.on('line', (line) => {
      stderr.push(line);
      if (stderr.length > 50) stderr.shift();
      const match = /MCP Streamable HTTP endpoint at (http:\/\/\S+)/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
  if (url === undefined) {
    await stop();
    throw new Error(`the HTTP server did not start: ${stderr.slice(-5).join(' | ')}`);
  }
  return { url, pid: child.pid, stop, stderr: () => stderr.join('\n') };
}

/** A keep-alive agent with at most `sockets` connections: one per concurrent client. */
export const keepAliveAgent = (sockets) => new http.Agent({ keepAlive: true, maxSockets: sockets });

/**
 * One JSON-RPC message POSTed as an SDK client posts it (`headers` add to or replace the 2025-11-25 ones). Resolves `{status, sessionId, message}`: the
 * JSON-RPC answer (from the SSE stream or a JSON body), undefined for a notification's 202.
 */
export function post(url, agent, message, sessionId, headers = {}) {
  const body = JSON.stringify(message);
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(body),
          'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
          ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
          ...headers,
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => {
          text += chunk;
        });
        response.on('end', () => {
          try {
            resolve({
              status: response.statusCode,
              sessionId: response.headers['mcp-session-id'],
              message: parseAnswer(text, response.headers['content-type'] ?? ''),
            });
          } catch (error) {
            reject(error);
          }
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** The last JSON-RPC response in an SSE stream (`data:` lines), or a JSON body. */
function parseAnswer(text, contentType) {
  if (text.trim() === '') return undefined;
  if (!contentType.includes('text/event-stream')) return JSON.parse(text);
  let answer;
  for (const line of text.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const message = JSON.parse(line.slice(5));
    if ('result' in message || 'error' in message) answer = message;
  }
  return answer;
}

let nextId = 1;
const request = (method, params) => ({ jsonrpc: '2.0', id: nextId++, method, params });

/**
 * What an SDK client sends to start: `initialize`, then `notifications/initialized`. Resolves the
 * session id (undefined when stateless); throws unless both were accepted.
 */
export async function initialize(url, agent, clientName = 'bench') {
  const answer = await post(
    url,
    agent,
    request('initialize', {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: clientName, version: '0.0.0' },
    }),
  );
  if (answer.status !== 200 || !answer.message?.result) {
    throw new Error(`initialize answered HTTP ${answer.status}: ${JSON.stringify(answer.message)}`);
  }
  const initialized = await post(
    url,
    agent,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    answer.sessionId,
  );
  if (initialized.status !== 202)
    throw new Error(`notifications/initialized answered HTTP ${initialized.status}`);
  return answer.sessionId;
}

/** One request; resolves its `result`, throws on an HTTP or JSON-RPC error. */
export async function call(url, agent, method, params, sessionId) {
  const answer = await post(url, agent, request(method, params), sessionId);
  if (answer.status !== 200 || !answer.message?.result) {
    throw new Error(
      `${method} answered HTTP ${answer.status}: ${JSON.stringify(answer.message?.error ?? answer.message)}`,
    );
  }
  return answer.message.result;
}

/** Runs `task(index)` for 0..count-1 with at most `concurrency` under way; rejects on the first failure. */
export async function inBatches(count, concurrency, task) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/** The p-th percentile (0..100) of `values`, nearest rank. */
export function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
