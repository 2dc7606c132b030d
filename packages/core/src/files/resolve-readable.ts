/**
 * Whether a path may be read, and its real location when it may. A path whose resolved (lexical) form lies
 * outside every readable directory is refused before anything on the disk is looked at, and a path inside
 * one that a symlink leads out of gets the very same answer, whether or not its target exists. Only inside a
 * readable directory does a refusal say that a file is missing. Remote callers (`revealPaths: false`) are
 * answered with the path as they gave it and never with the server's directories.
 */
import { readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expandHome } from '../config/default-state-dir.js';
import { ValidationError } from '../errors/polymodal-error.js';
import {
  ALLOWED_DIRS_VARIABLE,
  allowedDirs,
  grantedDirs,
  isHeldInput,
  isInside,
  type ReadableDirs,
  readableSpellings,
} from './readable-dirs.js';

/** How a FileAccess resolves: its directories, its environment (for `~`) and whether it names its paths. */
export interface ResolveContext {
  dirs: ReadableDirs;
  env: NodeJS.ProcessEnv;
  revealPaths: boolean;
}

export async function resolveReadable(context: ResolveContext, input: string): Promise<string> {
  const { dirs, revealPaths } = context;
  if (typeof input !== 'string' || input.trim() === '' || input.includes('\0')) {
    throw new ValidationError('A file path is required.', [{ path: 'path', message: 'empty path' }]);
  }
  const granted = grantedDirs(dirs);
  const readable = allowedDirs(dirs);
  const expanded = input.startsWith('file:') ? fileURLToPath(input) : expandHome(input, context.env);
  // Relative paths resolve against the first granted directory, never the process's working directory.
  const absolute = path.resolve(granted[0] ?? dirs.outputDir, expanded);
  // What the messages call the file: a remote caller sees its own words, never where they resolved to.
  const shown = revealPaths ? absolute : input;
  const held = isHeldInput(dirs, absolute);
  const refuse = () => outside({ shown, granted, revealPaths });
  // Before the disk: what lies outside is refused without learning whether it exists.
  if (!held && !readableSpellings(dirs, readable).some((root) => isInside(root, absolute))) throw refuse();
  let real: string;
  try {
    real = await realpath(absolute);
  } catch (error) {
    if (!held && !(await existsAsFarAsInside(absolute, readable))) throw refuse();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new ValidationError(`${shown} does not exist. Check the path (absolute paths are safest).`, [
        { path: 'path', message: 'not found' },
      ]);
    }
    throw denied(`${shown} cannot be accessed (${code ?? 'error'}).`);
  }
  if (readable.some((root) => isInside(root, real)) || isHeldInput(dirs, real)) return real;
  // Inside by name, outside in fact (a link leads out): the same answer as for any path outside.
  throw refuse();
}

/**
 * The refusal of a path outside every readable directory: one answer whether or not it exists, naming
 * the directories only where paths may be revealed.
 */
function outside(refusal: {
  shown: string;
  granted: readonly string[];
  revealPaths: boolean;
}): ValidationError {
  const { shown, granted, revealPaths } = refusal;
  if (granted.length === 0) {
    return denied(
      revealPaths
        ? `${shown} is not readable: no directories are allowed. Set ${ALLOWED_DIRS_VARIABLE} to the ` +
            `directories holding your files (separated by "${path.delimiter}"), or let the client share them as roots.`
        : `${shown} is not readable: no directories are allowed on this server (its operator sets them in ${ALLOWED_DIRS_VARIABLE}).`,
    );
  }
  return denied(
    revealPaths
      ? `${shown} is outside the allowed directories (${granted.join(', ')}). Move the file into one of them ` +
          `or add its directory to ${ALLOWED_DIRS_VARIABLE}.`
      : `${shown} is outside the allowed directories of this server (its operator sets them); nothing was read.`,
  );
}

/**
 * Whether a path that could not be resolved lies, as far as it exists, inside a readable directory: the
 * real place its deepest existing part leads to decides (a dangling link followed to where it points), so
 * a missing file behind a link that leads out of a readable directory is refused like any other path
 * outside, not reported missing.
 */
async function existsAsFarAsInside(absolute: string, readable: readonly string[]): Promise<boolean> {
  const real = await deepestRealPath(absolute);
  return real !== undefined && readable.some((root) => isInside(root, real));
}

function denied(message: string): ValidationError {
  return new ValidationError(message, [{ path: 'path', message: 'path not allowed' }]);
}

/** Links followed before a path counts as a loop, as the kernel's own limit (Linux: 40). */
const MAX_LINK_HOPS = 40;

/**
 * The real path of the deepest part of `absolute` that exists, following a dangling link to its target;
 * undefined for a loop of links.
 */
async function deepestRealPath(absolute: string, hops = 0): Promise<string | undefined> {
  let current = absolute;
  for (;;) {
    try {
      return await realpath(current);
    } catch {
      // Missing, a dangling link, or unreadable: looked at more closely below.
    }
    const link = await readlink(current).catch(() => undefined);
    if (link !== undefined) {
      if (hops >= MAX_LINK_HOPS) return undefined;
      // A relative target counts from the link's real directory, as the kernel reads it.
      const directory = await realpath(path.dirname(current)).catch(() => path.dirname(current));
      return deepestRealPath(path.resolve(directory, link), hops + 1);
    }
    const parent = path.dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}
