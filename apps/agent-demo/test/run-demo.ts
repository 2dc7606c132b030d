/**
 * Runs the built demo CLI as a newcomer does, with stdout and stderr piped: its JSON lines can be read one
 * by one as they arrive, and the test may act on one while the run goes on.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

export const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

export type DemoEvent = { type: string; seq: number; at: string } & Record<string, unknown>;

export interface DemoRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function assertBuilt(): void {
  if (!existsSync(cli))
    throw new Error('Build the demo first: pnpm turbo run build --filter=@polymodal/agent-demo...');
}

export function runDemo(
  args: string[],
  env: Record<string, string>,
  /** Called with each complete stdout line the moment it arrives, while the demo still runs. */
  onLine?: (line: string) => void,
): Promise<DemoRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let pending = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      pending += chunk;
      let end = pending.indexOf('\n');
      while (end >= 0) {
        onLine?.(pending.slice(0, end));
        pending = pending.slice(end + 1);
        end = pending.indexOf('\n');
      }
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Every stdout line parsed: --json prints nothing but one JSON object per line. */
export function parseEvents(stdout: string): DemoEvent[] {
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as DemoEvent);
}
