/**
 * The MCP registry entries (server.json) carry the version of their npm package: `changeset version` bumps
 * package.json only, and `pnpm version-packages` runs scripts/sync-server-json.mjs after it. Here: every
 * entry is in step now, and the script finds and mends one that is not (on a copy).
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const script = path.join(repo, 'scripts/sync-server-json.mjs');
const scratch: string[] = [];
afterAll(() => Promise.all(scratch.map((dir) => rm(dir, { recursive: true, force: true }))));

describe('server.json versions', () => {
  it('are those of their packages in this checkout', async () => {
    const { stdout } = await run(process.execPath, [script, '--check']);
    expect(stdout).toContain('every server.json is in step');
  });

  it('out of step after a version bump: --check fails, the sync mends both places', async () => {
    const copy = await mkdtemp(path.join(os.tmpdir(), 'server-json-'));
    scratch.push(copy);
    const pkgDir = path.join(copy, 'packages', 'mcp-meeting');
    await cp(path.join(repo, 'packages/mcp-meeting/package.json'), path.join(pkgDir, 'package.json'));
    await cp(path.join(repo, 'packages/mcp-meeting/server.json'), path.join(pkgDir, 'server.json'));
    const pkg = JSON.parse(await readFile(path.join(pkgDir, 'package.json'), 'utf8'));
    await writeFile(path.join(pkgDir, 'package.json'), JSON.stringify({ ...pkg, version: '1.2.3' }));

    const refused = await run(process.execPath, [script, '--check', '--root', copy]).catch((error) => error);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('packages/mcp-meeting/server.json');

    await run(process.execPath, [script, '--root', copy]);
    const server = JSON.parse(await readFile(path.join(pkgDir, 'server.json'), 'utf8'));
    expect(server.version).toBe('1.2.3');
    expect(server.packages.map((entry: { version: string }) => entry.version)).toEqual(['1.2.3']);
    await run(process.execPath, [script, '--check', '--root', copy]);
  });
});
