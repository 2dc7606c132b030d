/**
 * Two processes writing the same ledger at once (no lock server): every file stays whole and readable,
 * every entry each process recorded is there, and no compare-and-set update is lost between them.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { createJobLedger } from '../src/ledger.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
let root: string | undefined;

afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

function runWriter(dir: string, label: string, count: number): { ready: Promise<void>; done: Promise<void> } {
  let onReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    onReady = resolve;
  });
  const done = new Promise<void>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        path.join(fixtures, 'register-ts.mjs'),
        path.join(fixtures, 'ledger-writer.ts'),
        dir,
        label,
        String(count),
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('ready')) onReady();
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`writer exited ${code}: ${stderr}`)),
    );
  });
  return { ready: Promise.race([ready, done]), done };
}

it('survives a child process and this process writing the same entries concurrently', async () => {
  root = await mkdtemp(path.join(tmpdir(), 'polymodal-ledger-mp-'));
  const dir = path.join(root, 'jobs');
  const ledger = createJobLedger({ dir });
  await ledger.insert({ service: 'meeting', fingerprint: 'shared', id: 'shared-job', lastStatus: 'PENDING' });
  await ledger.insert({ service: 'meeting', fingerprint: 'counter', id: null, lastStatus: 'COUNTER' });

  const count = 120;
  const child = runWriter(dir, 'child', count);
  // Start only once the child is writing too, so that the two really overlap.
  await child.ready;
  const parentWrites = (async () => {
    for (let index = 0; index < count; index++) {
      await ledger.update('meeting', 'shared', {
        lastStatus: `parent-${index}`,
        title: 'parent'.repeat(500),
      });
      for (;;) {
        const entry = await ledger.findByFingerprint('meeting', 'counter');
        const total = Number(entry?.data?.count ?? 0);
        if (
          entry &&
          (await ledger.compareAndSet('meeting', 'counter', entry.revision, { data: { count: total + 1 } }))
        ) {
          break;
        }
      }
      if (index % 10 === 0) {
        await ledger.insert({
          service: 'meeting',
          fingerprint: `parent-${index}`,
          id: `parent-job-${index}`,
          lastStatus: 'PENDING',
        });
      }
    }
  })();
  await Promise.all([child.done, parentWrites]);

  const entriesDir = path.join(dir, 'entries', 'meeting');
  const files = await readdir(entriesDir);
  // No temp files left and every file is complete JSON.
  expect(files.filter((name) => name.startsWith('.'))).toEqual([]);
  for (const name of files) JSON.parse(await readFile(path.join(entriesDir, name), 'utf8'));

  const shared = await ledger.findById('meeting', 'shared-job');
  expect(shared?.lastStatus).toMatch(/^(parent|child)-\d+$/);
  expect(shared?.title).toMatch(/^(parent|child)+$/);
  const all = await ledger.list({ service: 'meeting' });
  expect(all).toHaveLength(2 + 2 * (count / 10));
  // Every increment of both processes is there: compare-and-set lost none.
  expect((await ledger.findByFingerprint('meeting', 'counter'))?.data?.count).toBe(2 * count);
  expect(await ledger.findById('meeting', 'child-job-110')).toBeDefined();
  expect(await ledger.findById('meeting', 'parent-job-110')).toBeDefined();
  // Sized by the work, not the 20 s default: a TypeScript child process starts, and 2 x 120 contended
  // writes go through the disk; it takes 3-10 s on an idle to a busy machine and passed 20 s beside two busy
  // CPU loops.
}, 90_000);
