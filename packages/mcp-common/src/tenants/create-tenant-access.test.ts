import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PlatformContext, PlatformContextOptions } from '../context/create-platform-context.js';
import { createTenantAccess } from './create-tenant-access.js';

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');
const SERVER_KEY = 'pm_server_key_0001';
const OWN_KEY = 'pm_own_key_0002';

let root: string | undefined;
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
  root = undefined;
});

describe('createTenantAccess: which tenants share a platform key', () => {
  it('scopes jobs to the ledger for every tenant whose key another may use, and follows reloads', async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'tenant-access-'));
    const file = path.join(root, 'tenants.json');
    const write = (tenants: unknown[]) => writeFile(file, JSON.stringify({ tenants }));
    await write([
      { id: 'no-key', tokenSha256: hashOf('no-key') },
      { id: 'own-key', tokenSha256: hashOf('own-key'), apiKey: OWN_KEY },
      { id: 'server-key', tokenSha256: hashOf('server-key'), apiKey: SERVER_KEY },
    ]);
    const sharedKey = new Map<string, () => boolean>();
    const access = await createTenantAccess({
      env: {
        POLYMODAL_BASE_URL: 'http://127.0.0.1:9',
        POLYMODAL_API_KEY: SERVER_KEY,
        POLYMODAL_TENANTS_FILE: file,
        POLYMODAL_STATE_DIR: path.join(root, 'state'),
      },
      createContext(options: PlatformContextOptions) {
        sharedKey.set(options.tenant as string, options.sharedKey as () => boolean);
        return { close: async () => {} } as unknown as PlatformContext;
      },
    });
    try {
      for (const token of ['no-key', 'own-key', 'server-key']) {
        expect(await access.authenticate(`Bearer ${token}`)).toMatchObject({ ok: true });
      }
      const shared = (id: string) => sharedKey.get(id)?.();
      // No key of its own; the same key as the tenant without one; a key nobody else uses.
      expect([shared('no-key'), shared('server-key'), shared('own-key')]).toEqual([true, true, false]);

      // Another tenant given the same key: both share it now, without a new context.
      await write([
        { id: 'no-key', tokenSha256: hashOf('no-key') },
        { id: 'own-key', tokenSha256: hashOf('own-key'), apiKey: OWN_KEY },
        { id: 'twin', tokenSha256: hashOf('twin'), apiKey: OWN_KEY },
      ]);
      expect(await access.reload()).toMatchObject({ ok: true, added: ['twin'] });
      expect(shared('own-key')).toBe(true);
    } finally {
      await access.close();
    }
  });
});
