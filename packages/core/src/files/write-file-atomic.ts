/**
 * Atomic file replacement: readers see the old file or the new one, never a torn mix, even when two
 * processes write at once. The data goes to a fresh temp file in the same directory (O_EXCL, so nothing
 * pre-existing is ever opened) and is renamed over the target; rename replaces a symlink at the target
 * instead of writing through it.
 */

import { closeSync, constants, fsync, openSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { nodeCrypto } from '../util/builtins.js';

export type FileData = string | Uint8Array | AsyncIterable<Uint8Array | string>;

export interface WriteFileAtomicOptions {
  /** Permissions of the new file. Default 0o600 (results and job records are private). */
  mode?: number;
  /** Flush to disk before the rename (default true), so a crash cannot leave an empty file behind. */
  fsync?: boolean;
}

const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** Temp file names of this process: its pid, a random token drawn once, and a count (O_EXCL all the same). */
let tempToken: string | undefined;
let tempCount = 0;

/** A fresh temp file name beside `filePath` (hidden, ends in .tmp), unique among this machine's processes. */
export function tempPathFor(filePath: string): string {
  tempToken ??= nodeCrypto().randomBytes(6).toString('hex');
  tempCount += 1;
  return path.join(
    path.dirname(filePath),
    `.${path.basename(filePath)}.${process.pid}.${tempToken}.${tempCount}.tmp`,
  );
}

export async function writeFileAtomic(
  filePath: string,
  data: FileData,
  options: WriteFileAtomicOptions = {},
): Promise<void> {
  const temp = tempPathFor(filePath);
  const handle = await open(temp, CREATE_FLAGS, options.mode ?? 0o600);
  let renamed = false;
  try {
    try {
      if (typeof data === 'string' || data instanceof Uint8Array) {
        await handle.writeFile(data);
      } else {
        for await (const chunk of data) {
          // writeFile continues at the current position and loops over short writes.
          await handle.writeFile(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
        }
      }
      if (options.fsync ?? true) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, filePath);
    renamed = true;
  } finally {
    if (!renamed) await unlink(temp).catch(() => undefined);
  }
}

/**
 * `writeFileAtomic` for a small file in a local directory (a job-ledger entry: a few KB): the temp file's
 * creation, write, close and the rename are synchronous, a few µs each where an asynchronous step is a
 * thread-pool round trip; only the fsync, which waits on the disk, goes through the thread pool. Same
 * guarantees: O_EXCL temp file, data on disk before the rename (unless `fsync: false`), a symlink at the
 * target replaced rather than written through.
 */
export async function writeSmallFileAtomic(
  filePath: string,
  data: string | Uint8Array,
  options: WriteFileAtomicOptions = {},
): Promise<void> {
  const temp = tempPathFor(filePath);
  const fd = openSync(temp, CREATE_FLAGS, options.mode ?? 0o600);
  let renamed = false;
  try {
    try {
      writeFileSync(fd, data);
      if (options.fsync ?? true) {
        await new Promise<void>((resolve, reject) =>
          fsync(fd, (error) => (error ? reject(error) : resolve())),
        );
      }
    } finally {
      closeSync(fd);
    }
    renameSync(temp, filePath);
    renamed = true;
  } finally {
    if (!renamed) {
      try {
        unlinkSync(temp);
      } catch {
        // Never created, or already gone.
      }
    }
  }
}
