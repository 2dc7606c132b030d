import { lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomic, writeSmallFileAtomic } from './write-file-atomic.js';

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

  it.each([
    ['writeFileAtomic', writeFileAtomic],
    ['writeSmallFileAtomic', writeSmallFileAtomic],
  ])('%s never leaves a torn file under concurrent writers', async (_name, write) => {
    const file = path.join(dir, 'entry.json');
    const payloads = Array.from({ length: 40 }, (_unused, index) =>
      JSON.stringify({ index, fill: 'x'.repeat(20_000) }),
    );
    await Promise.all(payloads.map((payload) => write(file, payload)));
    expect(payloads).toContain(await readFile(file, 'utf8'));
    expect(await readdir(dir)).toEqual(['entry.json']);
  });
});

describe('writeSmallFileAtomic', () => {
  it('replaces the file, private, and leaves no temp file behind, with or without the fsync', async () => {
    const file = path.join(dir, 'entry.json');
    await writeFile(file, 'old');
    await writeSmallFileAtomic(file, 'new');
    expect(await readFile(file, 'utf8')).toBe('new');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    await writeSmallFileAtomic(file, new TextEncoder().encode('newer'), { fsync: false });
    expect(await readFile(file, 'utf8')).toBe('newer');
    expect(await readdir(dir)).toEqual(['entry.json']);
  });

  it('replaces a symlink at the target instead of writing through it', async () => {
    const outside = path.join(dir, 'outside.txt');
    await writeFile(outside, 'keep me');
    const file = path.join(dir, 'entry.json');
    await symlink(outside, file);
    await writeSmallFileAtomic(file, 'entry');
    expect(await readFile(outside, 'utf8')).toBe('keep me');
    expect((await lstat(file)).isSymbolicLink()).toBe(false);
    expect(await readFile(file, 'utf8')).toBe('entry');
  });

  it('leaves nothing behind and the old file whole when the rename fails', async () => {
    const file = path.join(dir, 'entry.json');
    await writeFile(file, 'old');
    // A directory where the file's directory should be: the temp file cannot even be made.
    await expect(writeSmallFileAtomic(path.join(file, 'child.json'), 'x')).rejects.toThrow();
    // A directory at the target: the temp file is written, the rename over a directory fails.
    const target = path.join(dir, 'target');
    await mkdir(target);
    await expect(writeSmallFileAtomic(target, 'x')).rejects.toThrow();
    expect((await readdir(dir)).sort()).toEqual(['entry.json', 'target']);
    expect(await readFile(file, 'utf8')).toBe('old');
  });
});
