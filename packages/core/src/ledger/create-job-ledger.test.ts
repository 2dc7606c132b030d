import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createJobLedger } from './create-job-ledger.js';

let dir: string;
beforeEach(async () => {
  dir = path.join(await mkdtemp(path.join(tmpdir(), 'polymodal-ledger-')), 'jobs');
});
afterEach(async () => {
  await rm(path.dirname(dir), { recursive: true, force: true });
});

describe('createJobLedger', () => {
  it('inserts, finds by fingerprint and by id, and updates', async () => {
    const ledger = createJobLedger({ dir });
    const { inserted, entry: recorded } = await ledger.insert({
      service: 'meeting',
      fingerprint: 'fp1',
      id: null,
      receipt: 'rcpt',
      receiptIssuedAt: '2025-01-01T00:00:00.000Z',
      lastStatus: 'UPLOADED',
      request: { file: '/x.wav' },
    });
    expect(inserted).toBe(true);
    expect(recorded.createdAt).toBe(recorded.updatedAt);
    expect(recorded.revision).toBe(1);
    expect(await ledger.findByFingerprint('meeting', 'fp1')).toEqual(recorded);
    expect(await ledger.findById('meeting', 'job-1')).toBeUndefined();

    const updated = await ledger.update('meeting', 'fp1', { id: 'job-1', lastStatus: 'PENDING' });
    expect(updated).toMatchObject({
      id: 'job-1',
      receipt: 'rcpt',
      lastStatus: 'PENDING',
      createdAt: recorded.createdAt,
    });
    expect(await ledger.findById('meeting', 'job-1')).toEqual(updated);

    const byId = await ledger.updateById('meeting', 'job-1', { lastStatus: 'COMPLETED' });
    expect(byId?.lastStatus).toBe('COMPLETED');
    expect((await ledger.findByFingerprint('meeting', 'fp1'))?.lastStatus).toBe('COMPLETED');
    expect(await ledger.update('meeting', 'unknown', { lastStatus: 'X' })).toBeUndefined();
    expect(await ledger.updateById('meeting', 'no-such-job', { lastStatus: 'X' })).toBeUndefined();
  });

  it('keeps services apart and lists newest first with a limit', async () => {
    const ledger = createJobLedger({ dir });
    for (const [index, service] of ['meeting', 'speech', 'meeting'].entries()) {
      await ledger.insert({
        service,
        fingerprint: `fp${index}`,
        id: `id${index}`,
        lastStatus: 'PENDING',
        createdAt: `2025-01-0${index + 1}T00:00:00.000Z`,
      });
    }
    expect((await ledger.list()).map((entry) => entry.id)).toEqual(['id2', 'id1', 'id0']);
    expect((await ledger.list({ service: 'meeting' })).map((entry) => entry.id)).toEqual(['id2', 'id0']);
    expect((await ledger.list({ limit: 1 })).map((entry) => entry.id)).toEqual(['id2']);
    expect(await ledger.findById('speech', 'id0')).toBeUndefined();
  });

  it('creates private directories and files', async () => {
    const ledger = createJobLedger({ dir });
    await ledger.insert({ service: 'meeting', fingerprint: 'fp', id: 'j', lastStatus: 'PENDING' });
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const entries = path.join(dir, 'entries', 'meeting');
    const [file] = await readdir(entries);
    expect((await stat(path.join(entries, file ?? ''))).mode & 0o777).toBe(0o600);
  });

  it('skips corrupt entries instead of failing', async () => {
    const ledger = createJobLedger({ dir });
    await ledger.insert({ service: 'meeting', fingerprint: 'good', id: 'j1', lastStatus: 'PENDING' });
    const entries = path.join(dir, 'entries', 'meeting');
    await writeFile(path.join(entries, `${'a'.repeat(64)}.json`), '{"service": "meeting", "trunc');
    await writeFile(path.join(entries, `${'b'.repeat(64)}.json`), JSON.stringify({ unrelated: true }));
    expect((await ledger.list()).map((entry) => entry.id)).toEqual(['j1']);
  });

  it('finds an entry by id even when the id index is stale', async () => {
    const ledger = createJobLedger({ dir });
    await ledger.insert({ service: 'meeting', fingerprint: 'fp', id: 'job-9', lastStatus: 'PENDING' });
    await rm(path.join(dir, 'by-id'), { recursive: true });
    expect((await ledger.findById('meeting', 'job-9'))?.fingerprint).toBe('fp');
  });

  it('insert of an existing entry leaves it alone and returns it', async () => {
    const ledger = createJobLedger({ dir });
    const first = await ledger.insert({
      service: 'meeting',
      fingerprint: 'fp',
      id: null,
      lastStatus: 'SUBMITTING',
    });
    const second = await ledger.insert({
      service: 'meeting',
      fingerprint: 'fp',
      id: 'other',
      lastStatus: 'X',
    });
    expect(first.inserted).toBe(true);
    expect(second).toEqual({ inserted: false, entry: first.entry });
    const racing = await Promise.all(
      Array.from({ length: 10 }, (_unused, index) =>
        ledger.insert({ service: 'meeting', fingerprint: 'race', id: null, lastStatus: `caller-${index}` }),
      ),
    );
    expect(racing.filter((result) => result.inserted)).toHaveLength(1);
    const winner = racing.find((result) => result.inserted)?.entry.lastStatus;
    expect((await ledger.findByFingerprint('meeting', 'race'))?.lastStatus).toBe(winner);
  });

  it('compare-and-set applies a patch only on the revision it was given', async () => {
    const ledger = createJobLedger({ dir });
    const { entry } = await ledger.insert({
      service: 'meeting',
      fingerprint: 'fp',
      id: null,
      lastStatus: 'A',
    });
    const next = await ledger.compareAndSet('meeting', 'fp', entry.revision, { lastStatus: 'B' });
    expect(next).toMatchObject({ lastStatus: 'B', revision: entry.revision + 1 });
    // A writer that read the old revision loses: its patch is not applied.
    expect(await ledger.compareAndSet('meeting', 'fp', entry.revision, { lastStatus: 'C' })).toBeUndefined();
    expect((await ledger.findByFingerprint('meeting', 'fp'))?.lastStatus).toBe('B');
    // Of many writers holding the same revision, exactly one wins.
    const current = (await ledger.findByFingerprint('meeting', 'fp'))?.revision ?? 0;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_unused, index) =>
        ledger.compareAndSet('meeting', 'fp', current, { lastStatus: `writer-${index}` }),
      ),
    );
    expect(results.filter((result) => result !== undefined)).toHaveLength(1);
    expect(await ledger.compareAndSet('meeting', 'missing', 1, { lastStatus: 'X' })).toBeUndefined();
  });

  it('null clears a receipt (a restarted submission does not reuse the old one)', async () => {
    const ledger = createJobLedger({ dir });
    await ledger.insert({
      service: 'meeting',
      fingerprint: 'fp',
      id: 'j',
      receipt: 'r',
      lastStatus: 'FAILED',
    });
    const cleared = await ledger.update('meeting', 'fp', { id: null, receipt: null });
    expect(cleared?.receipt).toBeNull();
    expect(cleared?.id).toBeNull();
  });

  it('keeps every patch of concurrent updates in one process', async () => {
    const ledger = createJobLedger({ dir });
    await ledger.insert({ service: 'meeting', fingerprint: 'fp', id: null, lastStatus: 'UPLOADED' });
    await Promise.all(
      Array.from({ length: 30 }, (_unused, index) =>
        ledger.update('meeting', 'fp', { request: undefined, [`field${index}`]: index } as never),
      ),
    );
    const entry = (await ledger.findByFingerprint('meeting', 'fp')) as unknown as Record<string, unknown>;
    for (let index = 0; index < 30; index++) expect(entry[`field${index}`]).toBe(index);
    const files = await readdir(path.join(dir, 'entries', 'meeting'));
    expect(files).toHaveLength(1);
    JSON.parse(await readFile(path.join(dir, 'entries', 'meeting', files[0] ?? ''), 'utf8'));
  });

  it('refuses service names that could escape the ledger directory', async () => {
    const ledger = createJobLedger({ dir });
    await expect(ledger.findByFingerprint('../x', 'fp')).rejects.toThrow('Invalid service name');
  });
});
