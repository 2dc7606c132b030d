import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSandboxConfig } from './load-sandbox-config.js';
import { defaultUsers, pickKeys } from './resolve-users.js';
import { parseSandboxConfig, SandboxConfigError } from './sandbox-config.js';

describe('SandboxConfig', () => {
  it('fills the documented defaults', () => {
    const config = parseSandboxConfig({});
    expect(config.limits).toEqual({
      maxUploadBytes: 2 * 1024 ** 3,
      minimumCredits: 10,
      maxDurationSeconds: 7200,
    });
    expect(config.users).toBeUndefined();
    expect(config.faults).toEqual([]);
  });

  it('names every problem, without echoing keys', () => {
    let error: unknown;
    try {
      parseSandboxConfig({
        users: [
          { id: 'a', keys: [{ key: 'pm_live_duplicate_key' }] },
          { id: 'a', keys: [{ key: 'pm_live_duplicate_key' }, { key: 'secret-shaped-wrong' }] },
        ],
        limits: { maxUploadBytes: -1 },
        bogus: true,
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SandboxConfigError);
    const message = (error as Error).message;
    expect(message).toMatch(/users\.1\.id: duplicate user id "a"/);
    expect(message).toMatch(/users\.1\.keys\.0\.key: duplicate key/);
    expect(message).toMatch(/users\.1\.keys\.1\.key: must look like pm_live_<secret>/);
    expect(message).toMatch(/limits\.maxUploadBytes/);
    expect(message).toMatch(/bogus/);
    expect(message).not.toContain('secret-shaped-wrong');
    expect(message).not.toContain('pm_live_duplicate_key');
  });

  it('loads a file and reports unreadable or non-JSON files clearly', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'sandbox-config-'));
    try {
      const good = path.join(dir, 'good.json');
      await writeFile(good, JSON.stringify({ seed: 5, limits: { minimumCredits: 20 } }));
      expect((await loadSandboxConfig(good)).limits.minimumCredits).toBe(20);
      const bad = path.join(dir, 'bad.json');
      await writeFile(bad, '{ nope');
      await expect(loadSandboxConfig(bad)).rejects.toThrow(/not valid JSON/);
      await expect(loadSandboxConfig(path.join(dir, 'missing.json'))).rejects.toThrow(
        /cannot read the file \(ENOENT\)/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('generates two users on one site with fresh keys, plus a revoked and an expired key', () => {
    const users = defaultUsers();
    expect(users.map((user) => user.site)).toEqual(['default', 'default']);
    const keys = pickKeys(users, Date.now());
    for (const key of [keys.primary, keys.secondary, keys.revoked, keys.expired])
      expect(key).toMatch(/^pm_live_[A-Za-z0-9_-]{32}$/);
    expect(new Set([keys.primary, keys.secondary, keys.revoked, keys.expired]).size).toBe(4);
    expect(pickKeys(defaultUsers(), Date.now()).primary).not.toBe(keys.primary);
  });
});
