import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

// The built bin: `pnpm test` builds first; run `pnpm turbo run build --filter=@polymodal/sandbox...` alone.
const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/cli.js');
const children: ChildProcess[] = [];

function run(args: string[]) {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, stderr: () => stderr };
}

async function firstLines(child: ChildProcess, count: number): Promise<string[]> {
  const lines: string[] = [];
  const reader = readline.createInterface({ input: child.stdout! });
  for await (const line of reader) {
    lines.push(line);
    if (lines.length === count) break;
  }
  return lines;
}

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('polymodal-sandbox CLI', () => {
  it('prints exactly the base URL and two keys, serves, and closes cleanly on SIGTERM', async () => {
    const { child, exited } = run(['--port', '0', '--speed', '50']);
    const lines = await firstLines(child, 3);
    expect(lines[0]).toMatch(/^POLYMODAL_BASE_URL=http:\/\/127\.0\.0\.1:\d+$/);
    expect(lines[1]).toMatch(/^POLYMODAL_API_KEY=pm_live_[A-Za-z0-9_-]+$/);
    expect(lines[2]).toMatch(/^POLYMODAL_API_KEY_2=pm_live_[A-Za-z0-9_-]+$/);
    const [url, key, key2] = lines.map((line) => line.slice(line.indexOf('=') + 1));
    expect(key).not.toBe(key2);
    const response = await fetch(`${url}/api/conference-summary/v1/jobs`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { jobs: unknown[] }).jobs).toEqual([]);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('refuses an invalid configuration file with a message naming the field, on stderr only', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'sandbox-cli-'));
    try {
      const file = path.join(dir, 'config.json');
      await writeFile(file, JSON.stringify({ users: [{ id: 'a', keys: [{ key: 'sk_wrong' }] }] }));
      const { child, exited, stderr } = run(['--port', '0', '--config', file]);
      let stdout = '';
      child.stdout!.on('data', (chunk) => {
        stdout += chunk;
      });
      expect(await exited).toBe(2);
      expect(stdout).toBe('');
      expect(stderr()).toMatch(/users\.0\.keys\.0\.key: must look like pm_live_<secret>/);
      expect(stderr()).not.toContain('sk_wrong');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('uses the keys of a configuration file', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'sandbox-cli-'));
    try {
      const file = path.join(dir, 'config.json');
      await writeFile(
        file,
        JSON.stringify({
          users: [
            { id: 'a', keys: [{ key: 'pm_live_first_user_key' }] },
            { id: 'b', keys: [{ key: 'pm_live_second_user_key' }] },
          ],
        }),
      );
      const { child } = run(['--port', '0', '--config', file]);
      const lines = await firstLines(child, 3);
      expect(lines.slice(1)).toEqual([
        'POLYMODAL_API_KEY=pm_live_first_user_key',
        'POLYMODAL_API_KEY_2=pm_live_second_user_key',
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('prints help', async () => {
    const { child, exited } = run(['--help']);
    let stdout = '';
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
    });
    expect(await exited).toBe(0);
    expect(stdout).toMatch(/--speed/);
  });
});
