/**
 * Atomic file replacement: readers see the old file or the new one, never a torn mix, even when two
 * processes write at once. The data goes to a fresh temp file in the same directory (O_EXCL, so nothing
 * pre-existing is ever opened) and is renamed over the target; rename replaces a symlink at the target
 * instead of writing through it.
 */

import { constants } from 'node:fs';
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

export async function writeFileAtomic(
  filePath: string,
  data: FileData,
  options: WriteFileAtomicOptions = {},
): Promise<void> {
  const directory = path.dirname(filePath);
  const temp = path.join(
    directory,
    `.${path.basename(filePath)}.${process.pid}.${nodeCrypto().randomBytes(6).toString('hex')}.tmp`,
  );
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
