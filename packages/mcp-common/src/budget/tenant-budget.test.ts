import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPlatformContext } from '../context/create-platform-context.js';
import { createTenantAccess, type TenantAccess } from '../tenants/create-tenant-access.js';
import { hashToken } from '../tenants/find-tenant-by-token.js';

describe('budget of a tenant', () => {
  let root: string;
  let access: TenantAccess | undefined;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'tenant-budget-'));
  });
  afterEach(async () => {
    await access?.close();
    access = undefined;
    await rm(root, { recursive: true, force: true });
  });

  const env = (file: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    POLYMODAL_BASE_URL: 'http://127.0.0.1:9',
    POLYMODAL_API_KEY: 'pk_test_budget_0123456789',
    POLYMODAL_TENANTS_FILE: file,
    POLYMODAL_STATE_DIR: path.join(root, 'state'),
    POLYMODAL_LOG_LEVEL: 'error',
    ...extra,
  });

  it("is the tenant's own, else POLYMODAL_CREDITS_PER_DAY, and a reload applies a new one at once", async () => {
    const file = path.join(root, 'tenants.json');
    const write = (budgetA: unknown) =>
      writeFile(
        file,
        JSON.stringify({
          tenants: [
            {
              id: 'team-a',
              tokenSha256: hashToken('token-a').toString('hex'),
              ...(budgetA ? { budget: budgetA } : {}),
            },
            { id: 'team-b', tokenSha256: hashToken('token-b').toString('hex') },
          ],
        }),
      );
    await write({ creditsPerDay: 300 });
    access = await createTenantAccess({ env: env(file, { POLYMODAL_CREDITS_PER_DAY: '50' }) });
    const contextOf = async (token: string) => {
      const result = await access?.authenticate(`Bearer ${token}`);
      if (!result?.ok) throw new Error('not authenticated');
      return result.caller.context;
    };
    const a = await contextOf('token-a');
    expect(a.budget.limit()).toEqual({ creditsPerDay: 300, setting: 'budget.creditsPerDay' });
    expect((await contextOf('token-b')).budget.limit()).toEqual({
      creditsPerDay: 50,
      setting: 'POLYMODAL_CREDITS_PER_DAY',
    });

    await write({ creditsPerDay: 800 });
    expect(await access.reload()).toMatchObject({ ok: true, changed: [] });
    // The same context (nothing else changed), with the new budget.
    expect(await contextOf('token-a')).toBe(a);
    expect(a.budget.limit()?.creditsPerDay).toBe(800);

    await write(undefined);
    await access.reload();
    expect(a.budget.limit()).toEqual({ creditsPerDay: 50, setting: 'POLYMODAL_CREDITS_PER_DAY' });
  });

  it('has no limit without either, and a malformed POLYMODAL_CREDITS_PER_DAY stops the start', async () => {
    const open = createPlatformContext({ env: { ...env(''), POLYMODAL_TENANTS_FILE: '' } });
    expect(open.budget.limit()).toBeUndefined();
    await open.close();
    expect(() =>
      createPlatformContext({
        env: { ...env(''), POLYMODAL_TENANTS_FILE: '', POLYMODAL_CREDITS_PER_DAY: '5.5' },
      }),
    ).toThrow(/POLYMODAL_CREDITS_PER_DAY must be a whole number/);
  });
});
