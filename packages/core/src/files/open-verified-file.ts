/**
 * Opens a local file once, for every later read of one call (inspection, upload, each retry's body).
 *
 * A path is only a name: between the check of a path and its use, a directory on the way can be swapped for
 * a symlink to somewhere else, and `O_NOFOLLOW` guards only the last component. So the opened descriptor
 * itself is verified: it must be a regular file (opened without blocking, so a FIFO is refused at once), the
 * kernel's own name for it (`/proc/self/fd/N` on Linux) must be the path that was checked, and a fresh walk
 * of that path, component by component without following any symlink, must end at the same device and inode.
 * Whatever is read afterwards is read from this descriptor, never from the path again.
 */
import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, open, readlink } from 'node:fs/promises';
import path from 'node:path';
import { ValidationError } from '../errors/polymodal-error.js';

/** A file opened for reading; the caller closes `handle` when the call is over (also on errors). */
export interface OpenedFile {
  handle: FileHandle;
  /** The real path it was opened at (the name in messages and fingerprints). */
  realPath: string;
  /** Size and modification time when opened: an upload that finds them changed stops. */
  size: number;
  mtimeMs: number;
  /** Device and inode: a re-open is the same file only if both match. */
  dev: number;
  ino: number;
}

// O_NOFOLLOW refuses a symlink at the last component; O_NONBLOCK keeps open() of a FIFO from hanging (it has
// no effect on the reads of a regular file).
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

export interface OpenVerifiedFileOptions {
  /** Prefix of every message, e.g. the argument the path came from (`studentAudio: `). */
  label?: string;
  /**
   * What the messages call the file (default its path): a remote caller is told the path it gave, not
   * where that lies on this server.
   */
  name?: string;
}

function refused(message: string): ValidationError {
  return new ValidationError(`${message} Nothing was sent.`, [{ path: 'path', message: 'not readable' }]);
}

function identityOf(stats: Stats): Pick<OpenedFile, 'size' | 'mtimeMs' | 'dev' | 'ino'> {
  return { size: stats.size, mtimeMs: stats.mtimeMs, dev: stats.dev, ino: stats.ino };
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a named pipe';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * Opens `realPath` (already resolved and confined by the caller) and proves the descriptor is that very
 * file, reached through no symlink. Throws a ValidationError naming the file otherwise.
 */
export async function openVerifiedFile(
  realPath: string,
  options: OpenVerifiedFileOptions = {},
): Promise<OpenedFile> {
  const label = options.label ?? '';
  const shown = options.name ?? realPath;
  let handle: FileHandle;
  try {
    handle = await open(realPath, READ_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') {
      throw refused(`${label}${shown} was replaced by a symbolic link; refusing to follow it.`);
    }
    if (code === 'EISDIR') throw refused(`${label}${shown} is a directory, not a file.`);
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw refused(`${label}${shown} does not exist (it may have been moved while being opened).`);
    }
    if (code === 'ENXIO') throw refused(`${label}${shown} is a socket or a pipe, not a file.`);
    throw refused(`${label}${shown} cannot be opened (${code ?? 'error'}).`);
  }
  try {
    const opened = await handle.stat();
    if (!opened.isFile()) {
      throw refused(
        `${label}${shown} is ${kindOf(opened)}, not a regular file (directories, pipes and devices cannot be read).`,
      );
    }
    if (!(await isReachedWithoutLinks(handle, realPath, opened))) {
      throw refused(
        `${label}${shown} changed while it was being opened (a directory on its path was moved or replaced by a link); try again.`,
      );
    }
    return { handle, realPath, ...identityOf(opened) };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Whether the open descriptor is the file at `realPath`, with no symlink on the way. Both checks run where
 * they can: the kernel's name for the descriptor (Linux), and a walk of every component with `lstat`.
 */
async function isReachedWithoutLinks(handle: FileHandle, realPath: string, opened: Stats): Promise<boolean> {
  const kernelName = await descriptorPath(handle);
  if (kernelName !== undefined && kernelName !== realPath) return false;
  const root = path.parse(realPath).root;
  const parts = realPath.slice(root.length).split(path.sep).filter(Boolean);
  let current = root;
  let last: Stats | undefined;
  for (const part of parts) {
    current = path.join(current, part);
    try {
      last = await lstat(current);
    } catch {
      return false;
    }
    if (last.isSymbolicLink()) return false;
  }
  return last !== undefined && last.dev === opened.dev && last.ino === opened.ino;
}

/** The path the kernel holds for an open descriptor (Linux `/proc`), or undefined where there is none. */
async function descriptorPath(handle: FileHandle): Promise<string | undefined> {
  if (process.platform !== 'linux') return undefined;
  try {
    return await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    // /proc not mounted (some containers): the lstat walk alone decides.
    return undefined;
  }
}

/**
 * Opens a file that no allowed directory confines (a client built without FileAccess): symlinks are
 * followed as the caller asked, but it must still be a regular file, and a FIFO never blocks the open.
 */
export async function openRegularFile(
  filePath: string,
  options: OpenVerifiedFileOptions = {},
): Promise<OpenedFile> {
  const label = options.label ?? '';
  const absolute = path.resolve(filePath);
  let handle: FileHandle;
  try {
    handle = await open(absolute, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw refused(`${label}${absolute} does not exist. Check the path (absolute paths are safest).`);
    }
    if (code === 'EISDIR') throw refused(`${label}${absolute} is a directory, not a file.`);
    if (code === 'EACCES' || code === 'EPERM') {
      throw refused(`${label}${absolute} cannot be read (permission denied).`);
    }
    throw refused(`${label}${absolute} cannot be opened (${code ?? 'error'}).`);
  }
  try {
    const opened = await handle.stat();
    if (!opened.isFile()) {
      throw refused(
        `${label}${absolute} is ${kindOf(opened)}, not a regular file (directories, pipes and devices cannot be read).`,
      );
    }
    return { handle, realPath: absolute, ...identityOf(opened) };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Reads `length` bytes at `position` (fewer only at the end of the file), without moving any shared file
 * position: several readers of one descriptor never disturb each other.
 */
export async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled === length ? buffer : buffer.subarray(0, filled);
}
