/**
 * Downloaded inputs held by calls of this process: a file is readable (granted) only while a call holds
 * it, and removed when the last holder releases it; leftovers of processes that stopped mid-call are swept
 * from the inputs directory now and then.
 */
import { lstat, readdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { FileAccess } from '../files/create-file-access.js';

export interface RemoteInput {
  /** Real path of the downloaded file, readable through `files` until `release()`. */
  path: string;
  size: number;
  /** Where the bytes finally came from (after redirects), without the query string. */
  url: string;
  /** Gives the file up; the last holder of a file removes it. Safe to call twice. */
  release(): Promise<void>;
}

/** Holders of each downloaded file in this process, so the last one (not the first) removes it. */
const holders = new Map<string, number>();

/**
 * A file in the inputs directory this old (by its change time: the modification time is the constant
 * above) is left over by a process that stopped mid-call; no call lives this long.
 */
export const STALE_INPUT_MS = 6 * 60 * 60 * 1000;
/** When each inputs directory was last swept by this process: at most once an hour. */
const sweptAt = new Map<string, number>();

/** Removes leftovers of stopped processes (downloads cut off, inputs never released); errors are ignored. */
export async function sweepStaleInputs(directory: string, now: () => number): Promise<void> {
  const at = now();
  if (at - (sweptAt.get(directory) ?? Number.NEGATIVE_INFINITY) < 60 * 60 * 1000) return;
  sweptAt.set(directory, at);
  const names = await readdir(directory).catch(() => [] as string[]);
  for (const name of names) {
    const file = path.join(directory, name);
    if (holders.has(file)) continue;
    const stats = await lstat(file).catch(() => undefined);
    if (stats?.isFile() && at - stats.ctimeMs > STALE_INPUT_MS) await unlink(file).catch(() => undefined);
  }
}

export function holdInput(files: FileAccess, target: string, size: number, url: string): RemoteInput {
  holders.set(target, (holders.get(target) ?? 0) + 1);
  const revoke = files.grantInput(target);
  let released = false;
  return {
    path: target,
    size,
    url,
    async release() {
      if (released) return;
      released = true;
      revoke();
      const left = (holders.get(target) ?? 1) - 1;
      if (left > 0) {
        holders.set(target, left);
        return;
      }
      holders.delete(target);
      await unlink(target).catch(() => undefined);
    },
  };
}
