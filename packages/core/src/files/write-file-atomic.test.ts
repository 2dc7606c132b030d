import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from './write-file-atomic.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'polymodal-atomic-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('writeFileAtomic', () => {
  it('replaces the file and leaves no temp file behind', async () => {
    const file = path.join(dir, 'entry.json');
    await writeFile(file, 'old');
    await writeFileAtomic(file, 'new');
    expect(await readFile(file, 'utf8')).toBe('new');
    expect(await readdir(dir)).toEqual(['entry.json']);
  });

  it('removes its temp file when the data source fails, keeping the old content', async () => {
    const file = path.join(dir, 'entry.json');
    await writeFile(file, 'old');
    async function* failing() {
      yield new Uint8Array([1, 2, 3]);
      throw new Error('source broke');
    }
    await expect(writeFileAtomic(file, failing())).rejects.toThrow('source broke');
    expect(await readFile(file, 'utf8')).toBe('old');
    expect(await readdir(dir)).toEqual(['entry.json']);
  });

  it('never leaves a torn file under concurrent writers', async () => {
    const file = path.join(dir, 'entry.json');
    const payloads = Array.from({ length: 40 }, (_unused, index) =>
      JSON.stringify({ index, fill: 'x'.repeat(20_000) }),
    );
    await Promise.all(payloads.map((payload) => writeFileAtomic(file, payload)));
    expect(payloads).toContain(await readFile(file, 'utf8'));
    expect(await readdir(dir)).toEqual(['entry.json']);
  });
});
