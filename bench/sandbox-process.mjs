// The sandbox in a separate process, as every benchmark uses it: started on a free loopback port, steered
// through its `/__sandbox/` control routes, and stopped (awaited) even when a section fails.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import readline from 'node:readline';

const require = createRequire(import.meta.url);

export function binOf(packageName, binName) {
  const manifestPath = require.resolve(`${packageName}/package.json`);
  return path.join(path.dirname(manifestPath), require(manifestPath).bin[binName]);
}

/** Starts `polymodal-sandbox --port 0` with extra CLI arguments (e.g. `['--speed', '5']`). */
export async function startSandboxProcess(args = []) {
  const child = spawn(
    process.execPath,
    [binOf('@polymodal/sandbox', 'polymodal-sandbox'), '--port', '0', ...args],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const env = {};
  const lines = readline.createInterface({ input: child.stdout });
  for await (const line of lines) {
    const [key, ...rest] = line.split('=');
    env[key] = rest.join('=');
    if (env.POLYMODAL_API_KEY_2 !== undefined) break;
  }
  if (env.POLYMODAL_BASE_URL === undefined || env.POLYMODAL_API_KEY === undefined) {
    await stop();
    throw new Error('the sandbox exited before printing its address and keys');
  }
  return {
    env,
    baseUrl: env.POLYMODAL_BASE_URL,
    control: createControl(env.POLYMODAL_BASE_URL),
    pid: child.pid,
    stop,
  };
}

/** The control surface over HTTP (unauthenticated, loopback only; never logged nor counted). */
function createControl(baseUrl) {
  async function send(method, route, body) {
    const response = await fetch(`${baseUrl}/__sandbox/${route}`, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new Error(`${method} /__sandbox/${route} answered HTTP ${response.status}`);
    return response.json();
  }
  return {
    counters: () => send('GET', 'counters'),
    /** The request log, oldest first; `path` is a regex source. */
    requests: async ({ method, path: pattern }) =>
      (await send('GET', `requests?${new URLSearchParams({ method, path: pattern })}`)).requests,
    holdClock: () => send('POST', 'clock', { hold: true }),
    advance: (ms) => send('POST', 'clock', { advanceMs: ms }),
    reset: () => send('POST', 'reset'),
  };
}

/** Sum of a per-user counter (`uploads`, `jobsCreated`, …). */
export const total = (perUser) => Object.values(perUser ?? {}).reduce((sum, value) => sum + value, 0);
