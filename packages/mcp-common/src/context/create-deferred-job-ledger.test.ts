import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LedgerError } from '@polymodal/core';
import { createJobLedger, type JobLedger } from '@polymodal/core/ledger';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDeferredJobLedger } from './create-deferred-job-ledger.js';

describe('createDeferredJobLedger', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'deferred-ledger-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('opens the store once, on first use, and passes every call through', async () => {
    let loads = 0;
    let closes = 0;
    const store = createJobLedger({ dir });
    const ledger = createDeferredJobLedger({
      location: 'postgres://app:***@db/jobs',
      load: async () => {
        loads += 1;
        return {
          ...store,
          close: async () => {
            closes += 1;
          },
        };
      },
    });
    expect(ledger.location).toBe('postgres://app:***@db/jobs');
    expect(loads).toBe(0);
    const [first, second] = await Promise.all([
      ledger.insert({ service: 'meeting', fingerprint: 'fp', id: null, lastStatus: 'SUBMITTING' }),
      ledger.insert({ service: 'meeting', fingerprint: 'fp', id: null, lastStatus: 'SUBMITTING' }),
    ]);
    expect([first?.inserted, second?.inserted].filter(Boolean)).toHaveLength(1);
    const claimed = await ledger.compareAndSet('meeting', 'fp', 1, { id: 'job-1' });
    expect(claimed?.revision).toBe(2);
    await ledger.update('meeting', 'fp', { lastStatus: 'PENDING' });
    await ledger.updateById('meeting', 'job-1', { title: 'Weekly' });
    expect(await ledger.findById('meeting', 'job-1')).toMatchObject({
      lastStatus: 'PENDING',
      title: 'Weekly',
    });
    expect(await ledger.findByFingerprint('meeting', 'fp')).toMatchObject({ id: 'job-1' });
    expect((await ledger.list({ service: 'meeting' })).map((entry) => entry.id)).toEqual(['job-1']);
    expect(loads).toBe(1);

    await ledger.close();
    expect(closes).toBe(1);
    await expect(ledger.list()).rejects.toSatisfy(LedgerError.isInstance);
  });

  it("passes a write's options on, so that a read reservation is not made durable on the way", async () => {
    const store = createJobLedger({ dir });
    const seen: unknown[] = [];
    const ledger = createDeferredJobLedger({
      location: 'postgres://app:***@db/jobs',
      load: async () => ({
        ...store,
        compareAndSet: (service, fingerprint, revision, patch, options) => {
          seen.push(options);
          return store.compareAndSet(service, fingerprint, revision, patch, options);
        },
      }),
    });
    await ledger.insert({ service: 'meeting', fingerprint: 'fp', id: 'job-1', lastStatus: 'PENDING' });
    await ledger.compareAndSet(
      'meeting',
      'fp',
      1,
      { nextReadAt: '2030-01-01T00:00:00.000Z' },
      { durable: false },
    );
    await ledger.compareAndSet('meeting', 'fp', 2, { lastStatus: 'COMPLETED' });
    expect(seen).toEqual([{ durable: false }, undefined]);
  });

  it('reports a store that cannot be opened as a LedgerError, and tries again on the next call', async () => {
    let loads = 0;
    const store: JobLedger = createJobLedger({ dir });
    const ledger = createDeferredJobLedger({
      location: 'postgres://db/jobs',
      load: async () => {
        loads += 1;
        if (loads === 1) throw new Error("Cannot find package '@polymodal/store-postgres'");
        return store;
      },
    });
    const error = await ledger.findByFingerprint('meeting', 'fp').catch((caught: unknown) => caught);
    expect(LedgerError.isInstance(error)).toBe(true);
    expect((error as LedgerError).location).toBe('postgres://db/jobs');
    expect((error as Error).message).toContain('could not be opened');
    expect(await ledger.findByFingerprint('meeting', 'fp')).toBeUndefined();
    expect(loads).toBe(2);
  });
});
