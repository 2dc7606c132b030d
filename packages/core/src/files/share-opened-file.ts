/**
 * One opened file shared by a call and the paid work it starts. The job engine may let that work outlive
 * the call (its deadline passed and the upload goes on, so the next identical call can join it), so the
 * descriptor is closed only when the call and every piece of work using it are done, never under a running
 * upload. Work that starts after everyone let go re-opens the file and uses it only when it is the very file
 * that was checked (same device, inode, size and modification time); anything else is refused.
 */
import { ValidationError } from '../errors/polymodal-error.js';
import type { OpenedFile } from './open-verified-file.js';

export interface SharedFile {
  /** The file as first opened (its descriptor may be closed by now; read it through `use`). */
  readonly opened: OpenedFile;
  /** Runs `work` with an open descriptor of the same file, kept open until `work` settles. */
  use<T>(work: (file: OpenedFile) => Promise<T>): Promise<T>;
  /** The caller's own hold; the descriptor closes once no work uses it either. Safe to call twice. */
  release(): Promise<void>;
}

export function shareOpenedFile(opened: OpenedFile, reopen: () => Promise<OpenedFile>): SharedFile {
  let holders = 1;
  let released = false;
  let closed: Promise<void> | undefined;

  function drop(): Promise<void> {
    holders -= 1;
    if (holders > 0) return Promise.resolve();
    closed ??= opened.handle.close();
    return closed;
  }

  async function useReopened<T>(work: (file: OpenedFile) => Promise<T>): Promise<T> {
    const again = await reopen();
    try {
      if (
        again.dev !== opened.dev ||
        again.ino !== opened.ino ||
        again.size !== opened.size ||
        again.mtimeMs !== opened.mtimeMs
      ) {
        throw new ValidationError(
          `${opened.realPath} changed since it was checked (it was replaced, moved or written to). Call again to check and send the file as it is now. Nothing was sent.`,
          [{ path: 'file', message: 'the file changed' }],
        );
      }
      return await work(again);
    } finally {
      await again.handle.close();
    }
  }

  return {
    opened,
    async use(work) {
      if (closed !== undefined) return useReopened(work);
      holders += 1;
      try {
        return await work(opened);
      } finally {
        await drop();
      }
    },
    release() {
      if (released) return closed ?? Promise.resolve();
      released = true;
      return drop();
    },
  };
}
