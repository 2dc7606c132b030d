#!/usr/bin/env node
/**
 * `polymodal-sandbox`: runs the simulated platform until SIGINT/SIGTERM. Prints exactly three lines on
 * stdout (base URL and two keys, as environment assignments); anything else goes to stderr.
 */
import { parseArgs } from 'node:util';
import { loadSandboxConfig } from './config/load-sandbox-config.js';
import { SandboxConfigError } from './config/sandbox-config.js';
import { startSandbox } from './start-sandbox.js';

const HELP = `Usage: polymodal-sandbox [options]

Runs a local simulation of the Polymodal platform (meeting summary service) for tests and offline work.
It cannot recognise speech: transcripts come from the script embedded in generated recordings, or from a
fixed phrase bank.

Options:
  --port N       port to listen on (default 4010; 0 = a free port)
  --host HOST    interface to listen on (default 127.0.0.1; the /__sandbox/ control routes have no auth,
                 so keep it on loopback)
  --speed X      time scale of job progression (default 1; 10 = ten times faster)
  --config FILE  JSON configuration: users, keys, limits, faults, seed
  --help         show this text

On start it prints, one per line:
  POLYMODAL_BASE_URL=<url>
  POLYMODAL_API_KEY=<first user's key>
  POLYMODAL_API_KEY_2=<second user's key>`;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

function fail(message: string): never {
  process.stderr.write(`polymodal-sandbox: ${message}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  let values: { port?: string; host?: string; speed?: string; config?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        speed: { type: 'string' },
        config: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (error) {
    fail(`${(error as Error).message}\n\n${HELP}`);
  }
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  const port = Number(values.port ?? 4010);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) fail('--port must be an integer from 0 to 65535');
  const speed = Number(values.speed ?? 1);
  if (!Number.isFinite(speed) || speed <= 0) fail('--speed must be a number > 0');
  const host = values.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host)) {
    process.stderr.write(
      `polymodal-sandbox: warning: listening on ${host}; the /__sandbox/ control routes have no authentication\n`,
    );
  }
  let config: Awaited<ReturnType<typeof loadSandboxConfig>> | undefined;
  if (values.config) {
    try {
      config = await loadSandboxConfig(values.config);
    } catch (error) {
      if (error instanceof SandboxConfigError) fail(error.message);
      throw error;
    }
  }
  const sandbox = await startSandbox({ port, host, speed, ...(config ? { config } : {}) });
  process.stdout.write(
    `POLYMODAL_BASE_URL=${sandbox.url}\nPOLYMODAL_API_KEY=${sandbox.apiKey}\nPOLYMODAL_API_KEY_2=${sandbox.apiKey2}\n`,
  );
  process.stderr.write(`polymodal-sandbox: listening on ${sandbox.url} (speed ${speed})\n`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`polymodal-sandbox: ${signal}, closing\n`);
    sandbox.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`polymodal-sandbox: close failed: ${(error as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`polymodal-sandbox: ${(error as Error)?.message ?? String(error)}\n`);
  process.exit(1);
});
