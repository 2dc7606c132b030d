import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileAccess } from './create-file-access.js';
import { openVerifiedFile, readAt } from './open-verified-file.js';
import { shareOpenedFile } from './share-opened-file.js';

let root: string;
let allowed: string;
let outside: string;

beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'polymodal-open-')));
  allowed = path.join(root, 'allowed');
  outside = path.join(root, 'outside');
  await mkdir(path.join(allowed, 'meetings'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(allowed, 'meetings', 'standup.wav'), 'inside');
  await writeFile(path.join(outside, 'standup.wav'), 'OUTSIDE');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Replaces the directory holding the recording with a link to the outside directory. */
async function swapForLink(): Promise<void> {
  await rename(path.join(allowed, 'meetings'), path.join(allowed, 'meetings-moved'));
  await symlink(outside, path.join(allowed, 'meetings'));
}

describe('openVerifiedFile', () => {
  it('opens the checked file and reports its size, time and identity', async () => {
    const file = path.join(allowed, 'meetings', 'standup.wav');
    const opened = await openVerifiedFile(file);
    try {
      expect(opened).toMatchObject({ realPath: file, size: 6 });
      expect(opened.ino).toBeGreaterThan(0);
      expect((await readAt(opened.handle, 0, 6)).toString()).toBe('inside');
    } finally {
      await opened.handle.close();
    }
  });

  it('refuses a path whose directory was swapped for a link after the path was checked', async () => {
    // What `resolveReadable` answered before the swap; opening it now would follow the new link.
    const checked = path.join(allowed, 'meetings', 'standup.wav');
    await swapForLink();
    await expect(openVerifiedFile(checked)).rejects.toThrow(
      /standup\.wav changed while it was being opened .* Nothing was sent\./,
    );
  });

  it('refuses a FIFO at once instead of waiting for a writer', async () => {
    const fifo = path.join(allowed, 'pipe.wav');
    execFileSync('mkfifo', [fifo]);
    await expect(openVerifiedFile(fifo)).rejects.toThrow(/pipe\.wav is a named pipe, not a regular file/);
  });
});

describe('FileAccess.openReadable', () => {
  it('reads the file that was inside when opened, whatever the path names afterwards', async () => {
    const files = createFileAccess({ allowedDirs: [allowed], outputDir: path.join(root, 'out') });
    const opened = await files.openReadable(path.join(allowed, 'meetings', 'standup.wav'));
    try {
      await swapForLink();
      expect((await readAt(opened.handle, 0, opened.size)).toString()).toBe('inside');
    } finally {
      await opened.handle.close();
    }
    // Opened again now, the same path leads outside and is refused.
    await expect(files.openReadable(path.join(allowed, 'meetings', 'standup.wav'))).rejects.toThrow(
      'outside the allowed directories',
    );
  });
});

describe('shareOpenedFile', () => {
  it('keeps the descriptor open for work that outlives the caller, and closes it after', async () => {
    const file = path.join(allowed, 'meetings', 'standup.wav');
    const shared = shareOpenedFile(await openVerifiedFile(file), () => openVerifiedFile(file));
    let finish: (() => void) | undefined;
    const gate = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const work = shared.use(async (opened) => {
      await gate;
      return (await readAt(opened.handle, 0, opened.size)).toString();
    });
    await shared.release();
    finish?.();
    expect(await work).toBe('inside');
    await expect(shared.opened.handle.stat()).rejects.toThrow();
  });

  it('re-opens for work that starts after the release, only when it is the same file', async () => {
    const file = path.join(allowed, 'meetings', 'standup.wav');
    const shared = shareOpenedFile(await openVerifiedFile(file), () => openVerifiedFile(file));
    await shared.release();
    expect(await shared.use(async (opened) => (await readAt(opened.handle, 0, 6)).toString())).toBe('inside');
    await rename(file, `${file}.old`);
    await writeFile(file, 'replaced');
    await expect(shared.use(async () => 'read')).rejects.toThrow(/changed since it was checked/);
  });
});
