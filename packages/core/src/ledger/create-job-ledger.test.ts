import { mkdir, mkdtemp, readdir, readFile, rm, rmdir, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { describeJobLedgerContract } from '../../test/support/job-ledger-contract.js';
import { describeJobLedgerPaging } from '../../test/support/job-ledger-paging-contract.js';
import { createJobLedger } from './create-job-ledger.js';
import { EntryPaths } from './entry-files.js';

let dir: string;
beforeEach(async () => {
  dir = path.join(await mkdtemp(path.join(tmpdir(), 'polymodal-ledger-')), 'jobs');
});
afterEach(async () => {
  await rm(path.dirname(dir), { recursive: true, force: true });
});

describeJobLedgerContract('file store', () => createJobLedger({ dir }));
describeJobLedgerPaging('file store', () => createJobLedger({ dir }), {
  reopen: (ledger) => createJobLedger({ dir: ledger.location }),
  // As an editor saves it: the same file rewritten in place.
  async editByHand(ledger, entry, fields) {
    const file = new EntryPaths(ledger.location).entryFile(entry.service, entry.fingerprint);
    const stored = JSON.parse(await readFile(file, 'utf8'));
    await writeFile(file, JSON.stringify({ ...stored, ...fields }, null, 2));
  },
});

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

  it('starts a new directory with complete journals, so that no later start reads every entry to migrate', async () => {
    const ledger = createJobLedger({ dir });
    await ledger.insert({
      service: 'meeting',
      fingerprint: 'first',
      id: 'j1',
      lastStatus: 'PENDING',
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    const layout = JSON.parse(await readFile(path.join(dir, 'journal', 'layout.json'), 'utf8'));
    expect(layout).toMatchObject({ version: 1, entries: 0 });
    // A directory that already has entries and no journals is not taken for a new one.
    await rm(path.join(dir, 'journal'), { recursive: true });
    await createJobLedger({ dir }).insert({
      service: 'meeting',
      fingerprint: 'b',
      id: 'j2',
      lastStatus: 'PENDING',
    });
    await expect(stat(path.join(dir, 'journal', 'layout.json'))).rejects.toThrow(/ENOENT/);
    expect((await createJobLedger({ dir }).page({ limit: 5 })).entries.map((entry) => entry.id)).toEqual([
      'j2',
      'j1',
    ]);
  });

  it('with updatedSince, reads the entries written on the days since it and no older one', async () => {
    const day = 24 * 60 * 60 * 1000;
    let clock = Date.now() - 3 * day;
    const ledger = createJobLedger({ dir, now: () => clock });
    await ledger.insert({ service: 'meeting', fingerprint: 'old', id: 'three-days', lastStatus: 'PENDING' });
    clock = Date.now() - 60_000;
    await ledger.insert({ service: 'meeting', fingerprint: 'new', id: 'one-minute', lastStatus: 'PENDING' });
    expect((await ledger.page({ limit: 10 })).entries.map((entry) => entry.id)).toEqual([
      'one-minute',
      'three-days',
    ]);
    // The old entry's file becomes one no read can get through (a directory): a day's list that read it
    // would fail.
    const entries = path.join(dir, 'entries', 'meeting');
    for (const name of await readdir(entries)) {
      const text = await readFile(path.join(entries, name), 'utf8');
      if (!text.includes('three-days')) continue;
      await rm(path.join(entries, name));
      await mkdir(path.join(entries, name));
    }
    const since = new Date(Date.now() - 60 * 60 * 1000).toISOString();
    expect((await ledger.list({ updatedSince: since })).map((entry) => entry.id)).toEqual(['one-minute']);
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
    // A directory from an earlier version, whose process died between an entry and its id's index: the
    // id is found by reading the entries, and the index mended.
    await rm(path.join(dir, 'by-id'), { recursive: true });
    await rm(path.join(dir, 'journal'), { recursive: true });
    expect((await createJobLedger({ dir }).findById('meeting', 'job-2'))?.fingerprint).toBe('fp');
    expect(await readdir(path.join(dir, 'by-id', 'meeting'))).toHaveLength(1);
  });

  it('in a directory from an earlier version, finds an entry by id whose index is missing, and the migration mends it', async () => {
    const ledger = createJobLedger({ dir });
    await ledger.insert({ service: 'meeting', fingerprint: 'fp', id: 'job-9', lastStatus: 'PENDING' });
    await rm(path.join(dir, 'by-id'), { recursive: true });
    await rm(path.join(dir, 'journal'), { recursive: true });
    const later = createJobLedger({ dir });
    expect((await later.findById('meeting', 'job-9'))?.fingerprint).toBe('fp');
    await rm(path.join(dir, 'by-id'), { recursive: true });
    await later.page({ limit: 1 });
    expect(await readdir(path.join(dir, 'by-id', 'meeting'))).toHaveLength(1);
  });

  it('with complete journals, looks an unknown job id up in its index only, never in the entries', async () => {
    const ledger = createJobLedger({ dir });
    await ledger.insert({ service: 'meeting', fingerprint: 'fp', id: null, lastStatus: 'SUBMITTING' });
    await ledger.update('meeting', 'fp', { id: 'job-1', lastStatus: 'PENDING' });
    // Another entry becomes one no read can get through (a directory): a scan of the entries would fail.
    const entries = path.join(dir, 'entries', 'meeting');
    await mkdir(path.join(entries, `${'c'.repeat(64)}.json`));
    expect(await ledger.findById('meeting', 'no-such-job')).toBeUndefined();
    expect(await createJobLedger({ dir }).findById('meeting', 'no-such-job')).toBeUndefined();
    expect((await createJobLedger({ dir }).findById('meeting', 'job-1'))?.lastStatus).toBe('PENDING');
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
