#!/usr/bin/env node
// What the file store's steps cost this machine's kernel (issue 24): a status read's taking on the file
// store is a lock (a directory made and removed), a temp file created, written and renamed over the entry,
// and an fsync. This times each step alone, synchronously and in a loop, in a directory of the file system
// that holds the state directory (os.tmpdir() unless BENCH_STEPS_DIR says otherwise) and, where there is
// one, in a tmpfs (/dev/shm) beside it; then a whole taking through the file ledger itself
// (compareAndSet with durable: false, which the file store still syncs). CPU is the process's user +
// system time per step (process.cpuUsage), so the kernel's share of a step shows as system time.
// `node bench/file-store-steps.mjs` prints a Markdown table; BENCH_STEPS_COUNT (default 500) per step.
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createJobLedger } from '@polymodal/core/ledger';

const COUNT = Number(process.env.BENCH_STEPS_COUNT ?? 500);
const ENTRIES = 100;
const BODY = `${JSON.stringify({ note: 'x'.repeat(1400) })}\n`;

function timed(count, step) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let index = 0; index < count; index++) step(index);
  const used = process.cpuUsage(cpu);
  return {
    user: used.user / count,
    system: used.system / count,
    wall: ((performance.now() - started) * 1000) / count,
  };
}

async function timedAsync(count, step) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let index = 0; index < count; index++) await step(index);
  const used = process.cpuUsage(cpu);
  return {
    user: used.user / count,
    system: used.system / count,
    wall: ((performance.now() - started) * 1000) / count,
  };
}

/** Each step in a directory of `base` holding ENTRIES entry files, as the ledger's entries directory does. */
async function measure(base) {
  const dir = mkdtempSync(path.join(base, 'polymodal-steps-'));
  try {
    const entry = (index) => path.join(dir, `e${index % ENTRIES}.json`);
    for (let index = 0; index < ENTRIES; index++) writeFileSync(entry(index), BODY);
    const rows = [];
    rows.push(['stat an entry', timed(COUNT, (index) => statSync(entry(index)))]);
    rows.push(['read an entry', timed(COUNT, (index) => readFileSync(entry(index), 'utf8'))]);
    rows.push([
      'lock: make and remove a directory',
      timed(COUNT, (index) => {
        mkdirSync(`${entry(index)}.lock`);
        rmdirSync(`${entry(index)}.lock`);
      }),
    ]);
    rows.push([
      'temp file: create, write, close, rename over the entry',
      timed(COUNT, (index) => {
        const temp = path.join(dir, `.e${index % ENTRIES}.${process.pid}.${index}.tmp`);
        const fd = openSync(temp, 'wx', 0o600);
        writeSync(fd, BODY);
        closeSync(fd);
        renameSync(temp, entry(index));
      }),
    ]);
    rows.push([
      'fsync a written entry',
      timed(Math.min(COUNT, 200), (index) => {
        const fd = openSync(entry(index), 'r+');
        writeSync(fd, BODY, 0);
        fsyncSync(fd);
        closeSync(fd);
      }),
    ]);
    const ledger = createJobLedger({ dir: path.join(dir, 'ledger') });
    for (let index = 0; index < ENTRIES; index++) {
      await ledger.insert({
        service: 'meeting',
        fingerprint: `fp${index}`,
        id: `job${index}`,
        lastStatus: 'RUNNING',
      });
    }
    rows.push([
      'a taking through the file ledger (compareAndSet)',
      await timedAsync(COUNT, (index) =>
        ledger.compareAndSet(
          'meeting',
          `fp${index % ENTRIES}`,
          undefined,
          { lastReadAt: new Date().toISOString(), nextReadAt: new Date(Date.now() + 5_000).toISOString() },
          { durable: false },
        ),
      ),
    ]);
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const bases = [process.env.BENCH_STEPS_DIR ?? os.tmpdir()];
if (existsSync('/dev/shm')) bases.push('/dev/shm');
const results = [];
for (const base of bases) results.push({ base, rows: await measure(base) });
const format = (value) => value.toFixed(0);
const lines = [
  `A status read's file-store steps, ${COUNT} of each in a loop (µs per step: user CPU, system CPU, wall)`,
  '',
  `| Step | ${results.map(({ base }) => `${base}: user / system / wall`).join(' | ')} |`,
  `|---|${results.map(() => '---:').join('|')}|`,
];
for (const [index, [name]] of results[0].rows.entries()) {
  const cells = results.map(({ rows }) => {
    const { user, system, wall } = rows[index][1];
    return `${format(user)} / ${format(system)} / ${format(wall)}`;
  });
  lines.push(`| ${name} | ${cells.join(' | ')} |`);
}
process.stdout.write(`${lines.join('\n')}\n`);
