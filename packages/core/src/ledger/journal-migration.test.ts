/**
 * A ledger directory written before the journals existed, as a user upgrading has it: the first server on
 * it brings it into the journals without losing, changing or re-ordering an entry, and a second server
 * started meanwhile lists every entry too.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, rmdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createJobLedger, type JobLedger, type LedgerEntry } from './create-job-ledger.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'test', 'fixtures');
const DAY = 24 * 60 * 60 * 1000;
let dir: string;
beforeEach(async () => {
  dir = path.join(await mkdtemp(path.join(tmpdir(), 'polymodal-migrate-')), 'jobs');
});
afterEach(async () => {
  await rm(path.dirname(dir), { recursive: true, force: true });
});

/**
 * `count` entries over about `days` days in two services, some written again later, in the layout of
 * before the journals (the journals removed); returns each entry file's bytes.
 */
async function oldDirectory(count: number, days: number): Promise<Map<string, string>> {
  let clock = Date.now() - days * DAY;
  const ledger = createJobLedger({ dir, now: () => clock });
  for (let index = 0; index < count; index++) {
    clock += Math.floor((days * DAY) / (count + 1));
    const service = index % 4 === 0 ? 'text-to-video' : 'meeting';
    await ledger.insert({
      service,
      fingerprint: `fp-${index}`,
      id: `job-${index}`,
      lastStatus: 'PROCESSING',
    });
    if (index % 3 === 0) await ledger.update(service, `fp-${index}`, { lastStatus: 'COMPLETED' });
  }
  await rm(path.join(dir, 'journal'), { recursive: true, force: true });
  const bytes = new Map<string, string>();
  for (const service of await readdir(path.join(dir, 'entries'))) {
    for (const name of await readdir(path.join(dir, 'entries', service))) {
      bytes.set(`${service}/${name}`, await readFile(path.join(dir, 'entries', service, name), 'utf8'));
    }
  }
  return bytes;
}

async function everyPage(ledger: JobLedger, limit: number): Promise<LedgerEntry[]> {
  const entries: LedgerEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await ledger.page({ limit, ...(cursor === undefined ? {} : { cursor }) });
    entries.push(...page.entries);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return entries;
}

it('migrates a directory from before the journals on first use: every entry intact and in the same order', async () => {
  const before = await oldDirectory(120, 40);
  const ledger = createJobLedger({ dir });
  // The whole list reads the directories, as every version did: the order to keep.
  const expected = (await ledger.list()).map((entry) => entry.id);
  expect(expected).toHaveLength(120);
  expect(await everyPage(ledger, 17)).toEqual(await ledger.list());
  expect((await everyPage(ledger, 17)).map((entry) => entry.id)).toEqual(expected);
  const layout = JSON.parse(await readFile(path.join(dir, 'journal', 'layout.json'), 'utf8'));
  expect(layout).toMatchObject({ version: 1, entries: 120 });
  // Nothing was rewritten.
  for (const [file, bytes] of before) {
    expect(await readFile(path.join(dir, 'entries', file), 'utf8')).toBe(bytes);
  }
  // A day is read through the journals now: the entries written in the last 3 days, as their files say.
  const since = Date.now() - 3 * DAY;
  const recent = (await ledger.list({ updatedSince: new Date(since).toISOString() })).map(
    (entry) => entry.id,
  );
  const written = (await ledger.list()).filter((entry) => Date.parse(entry.updatedAt) >= since);
  expect(recent.sort()).toEqual(written.map((entry) => entry.id).sort());
  expect(recent.length).toBeGreaterThan(3);
  // A server started later finds the migration done and pages the same.
  expect((await everyPage(createJobLedger({ dir }), 50)).map((entry) => entry.id)).toEqual(expected);
});

it('while another process holds the migration, lists every entry by reading the directories, then migrates', async () => {
  await oldDirectory(30, 5);
  // Another process migrating: the layout file's lock, fresh, as proper-lockfile makes it.
  const lock = path.join(dir, 'journal', 'layout.json.lock');
  await mkdir(lock, { recursive: true });
  const ledger = createJobLedger({ dir });
  const expected = (await ledger.list()).map((entry) => entry.id);
  expect((await everyPage(ledger, 7)).map((entry) => entry.id)).toEqual(expected);
  await expect(stat(path.join(dir, 'journal', 'layout.json'))).rejects.toThrow(/ENOENT/);
  await rmdir(lock);
  expect((await everyPage(ledger, 7)).map((entry) => entry.id)).toEqual(expected);
  expect((await stat(path.join(dir, 'journal', 'layout.json'))).isFile()).toBe(true);
});

function runPager(label: string): Promise<{ seen: string[]; added: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        path.join(fixtures, 'register-ts.mjs'),
        path.join(fixtures, 'ledger-pager.ts'),
        dir,
        label,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(stdout)) : reject(new Error(`pager exited ${code}: ${stderr}`)),
    );
  });
}

it('two servers started at once on an old directory each page through every entry once, adding their own', async () => {
  await oldDirectory(600, 60);
  const expected = (await createJobLedger({ dir }).list()).map((entry) => entry.id);
  const [first, second] = await Promise.all([runPager('a'), runPager('b')]);
  for (const run of [first, second]) {
    // What each added while paging is newer than where it was: never on a later page.
    const old = run.seen.filter((id) => /^job-/.test(id));
    expect(old).toEqual(expected);
    expect(new Set(run.seen).size).toBe(run.seen.length);
  }
  const after = await everyPage(createJobLedger({ dir }), 100);
  expect(after).toHaveLength(600 + first.added + second.added);
  expect(after.slice(first.added + second.added).map((entry) => entry.id)).toEqual(expected);
  expect(JSON.parse(await readFile(path.join(dir, 'journal', 'layout.json'), 'utf8')).version).toBe(1);
}, 60_000);
