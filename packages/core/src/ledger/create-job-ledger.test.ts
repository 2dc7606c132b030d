import { mkdir, mkdtemp, readdir, readFile, rm, rmdir, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { describeJobLedgerContract } from '../../test/support/job-ledger-contract.js';
import { createJobLedger } from './create-job-ledger.js';

let dir: string;
beforeEach(async () => {
  dir = path.join(await mkdtemp(path.join(tmpdir(), 'polymodal-ledger-')), 'jobs');
});
afterEach(async () => {
  await rm(path.dirname(dir), { recursive: true, force: true });
});

describeJobLedgerContract('file store', () => createJobLedger({ dir }));

/** One entry, and its lock directory made as proper-lockfile makes it for another process holding the lock. */
async function lockedEntry() {
  const ledger = createJobLedger({ dir });
  const { entry } = await ledger.insert({
    service: 'meeting',
    fingerprint: 'fp',
    id: 'j',
    lastStatus: 'PENDING',
  });
  const entries = path.join(dir, 'entries', 'meeting');
  const [file] = (await readdir(entries)).filter((name) => name.endsWith('.json'));
  const lock = path.join(entries, `${file}.lock`);
  await mkdir(lock);
  return { ledger, entry, entries, lock };
}

describe('createJobLedger: the file store', () => {
  it('creates private directories and files', async () => {
    const ledger = createJobLedger({ dir });
    await ledger.insert({ service: 'meeting', fingerprint: 'fp', id: 'j', lastStatus: 'PENDING' });
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const entries = path.join(dir, 'entries', 'meeting');
    const [file] = await readdir(entries);
    expect((await stat(path.join(entries, file ?? ''))).mode & 0o777).toBe(0o600);
  });

  it("waits out another process's lock on an entry, then writes at the revision it finds", async () => {
    // Another process holds the entry's lock (proper-lockfile's lock directory, fresh).
    const { ledger, entry, lock } = await lockedEntry();
    let written = false;
    const update = ledger
      .compareAndSet('meeting', 'fp', entry.revision, { lastStatus: 'RUNNING' })
      .then((next) => {
        written = true;
        return next;
      });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(written).toBe(false);
    await rmdir(lock);
    expect(await update).toMatchObject({ lastStatus: 'RUNNING', revision: entry.revision + 1 });
  });

  it('takes over a lock left by a process that died holding it (untouched for longer than 10 s)', async () => {
    const { ledger, entry, entries, lock } = await lockedEntry();
    const longAgo = new Date(Date.now() - 60_000);
    await utimes(lock, longAgo, longAgo);
    expect(
      await ledger.compareAndSet('meeting', 'fp', entry.revision, { lastStatus: 'RUNNING' }),
    ).toMatchObject({
      lastStatus: 'RUNNING',
    });
    // Released after the write: the next writer does not wait.
    expect((await readdir(entries)).filter((name) => name.endsWith('.lock'))).toEqual([]);
  });

  it('makes its entries directory again when it was removed while the ledger is in use', async () => {
    const ledger = createJobLedger({ dir });
    const { entry } = await ledger.insert({
      service: 'meeting',
      fingerprint: 'fp',
      id: 'j',
      lastStatus: 'PENDING',
    });
    await ledger.update('meeting', 'fp', { lastStatus: 'RUNNING' });
    await rm(path.join(dir, 'entries'), { recursive: true });
    // The entry is gone with it: nothing to update, and no error.
    expect(
      await ledger.compareAndSet('meeting', 'fp', entry.revision + 1, { lastStatus: 'DONE' }),
    ).toBeUndefined();
    expect(
      (await ledger.insert({ service: 'meeting', fingerprint: 'fp', id: 'j', lastStatus: 'PENDING' }))
        .inserted,
    ).toBe(true);
    expect(await ledger.update('meeting', 'fp', { lastStatus: 'RUNNING' })).toMatchObject({
      lastStatus: 'RUNNING',
    });
  });

  it('skips corrupt entries instead of failing', async () => {
    const ledger = createJobLedger({ dir });
    await ledger.insert({ service: 'meeting', fingerprint: 'good', id: 'j1', lastStatus: 'PENDING' });
    const entries = path.join(dir, 'entries', 'meeting');
    await writeFile(path.join(entries, `${'a'.repeat(64)}.json`), '{"service": "meeting", "trunc');
    await writeFile(path.join(entries, `${'b'.repeat(64)}.json`), JSON.stringify({ unrelated: true }));
    expect((await ledger.list()).map((entry) => entry.id)).toEqual(['j1']);
  });

  it('with updatedSince, skips without reading the files last written long before it', async () => {
    const ledger = createJobLedger({ dir });
    const entries = path.join(dir, 'entries', 'meeting');
    const hour = 60 * 60 * 1000;
    // Two entries whose files say they were written two days and one minute before `since`, while their
    // contents say "now": only the file's own time can keep the first from being read.
    for (const [id, age] of [
      ['two-days', 48 * hour],
      ['one-minute', 60_000],
    ] as const) {
      const before = new Set(await readdir(entries).catch(() => []));
      await ledger.insert({ service: 'meeting', fingerprint: id, id, lastStatus: 'PENDING' });
      const name = (await readdir(entries)).find((file) => !before.has(file)) ?? '';
      const written = new Date(Date.now() - hour - age);
      await utimes(path.join(entries, name), written, written);
    }
    await ledger.insert({ service: 'meeting', fingerprint: 'now', id: 'now', lastStatus: 'PENDING' });
    const since = new Date(Date.now() - hour).toISOString();
    expect((await ledger.list({ updatedSince: since })).map((entry) => entry.id).sort()).toEqual([
      'now',
      'one-minute',
    ]);
    expect(await ledger.list()).toHaveLength(3);
  });

  it('lists every later write, by this ledger, another process or a hand edit, though it keeps what it parsed', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const ledger = createJobLedger({ dir });
      const other = createJobLedger({ dir });
      await ledger.insert({ service: 'meeting', fingerprint: 'a', id: 'job-a', lastStatus: 'PENDING' });
      await ledger.insert({ service: 'meeting', fingerprint: 'b', id: 'job-b', lastStatus: 'PENDING' });
      const statusOf = async (id: string) =>
        (await ledger.list()).find((entry) => entry.id === id)?.lastStatus;
      // Still for long enough to be kept.
      vi.setSystemTime(Date.now() + 60_000);
      expect(await statusOf('job-a')).toBe('PENDING');
      await ledger.update('meeting', 'a', { lastStatus: 'RUNNING' });
      expect(await statusOf('job-a')).toBe('RUNNING');
      vi.setSystemTime(Date.now() + 60_000);
      expect(await statusOf('job-a')).toBe('RUNNING');
      await other.update('meeting', 'a', { lastStatus: 'SUCCESS' });
      expect(await statusOf('job-a')).toBe('SUCCESS');
      vi.setSystemTime(Date.now() + 60_000);
      expect(await statusOf('job-b')).toBe('PENDING');
      // Rewritten in place, same size: the same inode, but a new mtime and ctime.
      const entries = path.join(dir, 'entries', 'meeting');
      for (const name of await readdir(entries)) {
        const file = path.join(entries, name);
        const text = await readFile(file, 'utf8');
        if (!text.includes('"job-b"')) continue;
        await writeFile(file, text.replace('PENDING', 'FAILED_'));
        // Within one tick of the file system's clock the mtime would not tell; an editor's save is later.
        await utimes(file, new Date('2030-01-01T00:00:00Z'), new Date('2030-01-01T00:00:00Z'));
      }
      expect(await statusOf('job-b')).toBe('FAILED_');
      await rm(path.join(entries, (await readdir(entries))[0] ?? ''));
      expect(await ledger.list()).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('finds an entry by id after later writes, and mends a lost index for the next process', async () => {
    const ledger = createJobLedger({ dir });
    await ledger.insert({ service: 'meeting', fingerprint: 'fp', id: null, lastStatus: 'SUBMITTING' });
    await ledger.update('meeting', 'fp', { id: 'job-1', lastStatus: 'PENDING' });
    await ledger.update('meeting', 'fp', { lastStatus: 'RUNNING' });
    expect((await ledger.findById('meeting', 'job-1'))?.lastStatus).toBe('RUNNING');
    // The same entry given another job (a forced restart): the old id no longer finds it.
    await ledger.update('meeting', 'fp', { id: 'job-2', lastStatus: 'PENDING' });
    expect(await ledger.findById('meeting', 'job-1')).toBeUndefined();
    expect((await ledger.findById('meeting', 'job-2'))?.lastStatus).toBe('PENDING');
    await rm(path.join(dir, 'by-id'), { recursive: true });
    expect((await createJobLedger({ dir }).findById('meeting', 'job-2'))?.fingerprint).toBe('fp');
    expect(await readdir(path.join(dir, 'by-id', 'meeting'))).toHaveLength(1);
  });

  it('finds an entry by id even when the id index is stale', async () => {
    const ledger = createJobLedger({ dir });
    await ledger.insert({ service: 'meeting', fingerprint: 'fp', id: 'job-9', lastStatus: 'PENDING' });
    await rm(path.join(dir, 'by-id'), { recursive: true });
    expect((await ledger.findById('meeting', 'job-9'))?.fingerprint).toBe('fp');
  });

  it('leaves one whole entry file after concurrent updates (each written atomically)', async () => {
    const ledger = createJobLedger({ dir });
    await ledger.insert({ service: 'meeting', fingerprint: 'fp', id: null, lastStatus: 'UPLOADED' });
    await Promise.all(
      Array.from({ length: 30 }, (_unused, index) => ledger.update('meeting', 'fp', { title: `t${index}` })),
    );
    const files = await readdir(path.join(dir, 'entries', 'meeting'));
    expect(files).toHaveLength(1);
    const stored = JSON.parse(await readFile(path.join(dir, 'entries', 'meeting', files[0] ?? ''), 'utf8'));
    expect(stored).toEqual(await ledger.findByFingerprint('meeting', 'fp'));
    expect(stored.revision).toBe(31);
  });
});
