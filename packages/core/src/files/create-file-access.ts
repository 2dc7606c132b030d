/**
 * Confinement of local file access. Paths come from a model or a remote client, so a path is readable
 * only if its real location (all symlinks resolved) lies inside an allowed directory, compared with
 * `path.relative` (a prefix check would let `/data/rec` admit `/data/rec_evil`). A file is opened once
 * (`openReadable`) and the descriptor itself is verified (see `openVerifiedFile`), so a path swapped between
 * check and open is caught; every later read of the call goes through that descriptor.
 *
 * A refusal must not tell a caller what exists outside: a path whose resolved (lexical) form lies outside
 * every readable directory is refused before anything on the disk is looked at, and a path inside one that
 * a symlink leads out of gets the very same answer, whether or not its target exists. Only inside a
 * readable directory does a refusal say that a file is missing. Remote callers (`revealPaths: false`) are
 * answered with the path as they gave it and never with the server's directories.
 *
 * Outputs are written only into the output directory, under a sanitised name, atomically.
 *
 * Remote inputs (an https URL a caller gave instead of a path, see `fetchRemoteInput`) are downloaded into
 * the private inputs directory (`<state dir>/inputs`). That directory is not an allowed directory: a file
 * in it is readable only while a call holds it (`grantInput`), so a caller can never read another call's
 * download by guessing its name, and a tenant's FileAccess never admits another tenant's inputs directory.
 */
import { realpathSync } from 'node:fs';
import { mkdir, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { defaultStateDir, expandHome } from '../config/default-state-dir.js';
import { ConfigError, ValidationError } from '../errors/polymodal-error.js';
import { type OpenedFile, openVerifiedFile } from './open-verified-file.js';
import { sanitizeFileName } from './sanitize-file-name.js';
import { writeFileAtomic } from './write-file-atomic.js';

export const ALLOWED_DIRS_VARIABLE = 'POLYMODAL_ALLOWED_DIRS';
export const OUTPUT_DIR_VARIABLE = 'POLYMODAL_OUTPUT_DIR';

/**
 * Remote inputs held by calls, by real path, counted: the same file may be held by two calls at once (an
 * identical URL). Process-wide so that a session's FileAccess view (roots) sees them too; each FileAccess
 * admits only those inside its own inputs directory.
 */
const heldInputs = new Map<string, number>();

export interface FileAccessOptions {
  /** Readable directories. Default: `POLYMODAL_ALLOWED_DIRS` (path.delimiter-separated), else none. */
  allowedDirs?: readonly string[];
  /** Where outputs go. Default: `POLYMODAL_OUTPUT_DIR`, else `<defaultStateDir>/outputs`. */
  outputDir?: string;
  /** Where remote inputs are downloaded (private, 0700). Default: `<defaultStateDir>/inputs`. */
  inputsDir?: string;
  /**
   * Whether refusals may name the server's paths: the readable directories, and the absolute path a
   * relative one resolved to. Default true, for a person on this machine (stdio); false for remote callers,
   * who then see only the path they gave.
   */
  revealPaths?: boolean;
  env?: NodeJS.ProcessEnv;
}

export interface FileAccess {
  readonly outputDir: string;
  /** Private directory of downloaded remote inputs; its files are readable only while granted. */
  readonly inputsDir: string;
  /** Whether refusals name the server's paths (see `FileAccessOptions.revealPaths`). */
  readonly revealsPaths: boolean;
  /**
   * Makes one downloaded file inside `inputsDir` readable until the returned function is called (each
   * grant is revoked once; the file stays readable while any grant of it is held).
   */
  grantInput(realPath: string): () => void;
  /** Real paths of every readable directory: configured, then roots, then the output directory (see below). */
  allowedDirs(): string[];
  /** Replaces the directories granted by the MCP client's roots (paths or file:// URIs). */
  setRoots(dirs: readonly string[]): void;
  /** Real path of `path` if it lies inside a readable directory. */
  resolveReadable(path: string): Promise<string>;
  /**
   * Opens a confined regular file for reading, once: no symlink is followed on the way and the descriptor is
   * proved to be the file inside the allowed directory (never blocks on a FIFO). The caller reads only
   * through `handle` afterwards and closes it.
   */
  openReadable(path: string): Promise<OpenedFile>;
  /** Writes an output file atomically and returns its absolute path. */
  writeOutput(
    name: string,
    data: string | Uint8Array | AsyncIterable<Uint8Array> | Readable,
  ): Promise<string>;
}

function denied(message: string): ValidationError {
  return new ValidationError(message, [{ path: 'path', message: 'path not allowed' }]);
}

/** Whether `target` is `root` or below it; both must be real (resolved) absolute paths. */
export function isInside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return (
    relative === '' ||
    (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
  );
}

function toDirectory(value: string, env: NodeJS.ProcessEnv, variable: string): string {
  const text = value.startsWith('file:') ? fileURLToPath(value) : expandHome(value.trim(), env);
  if (!path.isAbsolute(text)) {
    // Relative entries would depend on the host's working directory, which MCP hosts do not define.
    throw new ConfigError(variable, `${variable} entries must be absolute paths; "${value}" is relative.`);
  }
  return path.resolve(text);
}

function realOrResolved(directory: string): string | undefined {
  try {
    return realpathSync(directory);
  } catch {
    return undefined;
  }
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

export function createFileAccess(options: FileAccessOptions = {}): FileAccess {
  const env = options.env ?? process.env;
  const configured = (
    options.allowedDirs ??
    (env[ALLOWED_DIRS_VARIABLE] ?? '').split(path.delimiter).filter((item) => item.trim() !== '')
  ).map((item) => toDirectory(item, env, ALLOWED_DIRS_VARIABLE));
  const outputDir = toDirectory(
    options.outputDir ?? (env[OUTPUT_DIR_VARIABLE] || path.join(defaultStateDir(env), 'outputs')),
    env,
    OUTPUT_DIR_VARIABLE,
  );
  const inputsDir = path.resolve(options.inputsDir ?? path.join(defaultStateDir(env), 'inputs'));
  const revealPaths = options.revealPaths ?? true;
  let roots: string[] = [];

  /** A downloaded input some call holds right now, inside this FileAccess's own inputs directory. */
  function isHeldInput(real: string): boolean {
    if (!heldInputs.has(real)) return false;
    const inputs = realOrResolved(inputsDir);
    return inputs !== undefined && path.dirname(real) === inputs;
  }

  /** Directories granted by configuration or roots (not the output dir), real paths of existing ones. */
  function grantedDirs(): string[] {
    const result: string[] = [];
    for (const directory of [...configured, ...roots]) {
      const real = realOrResolved(directory);
      if (real !== undefined && !result.includes(real)) result.push(real);
    }
    return result;
  }

  /**
   * The granted directories, then the output directory — but only once some directory is granted: with
   * no allowed dirs and no roots nothing at all is readable (the conservative rule the READMEs state), and
   * with some, a saved output can be fed back in as an input.
   */
  function allowedDirs(): string[] {
    const result = grantedDirs();
    if (result.length === 0) return result;
    const output = realOrResolved(outputDir) ?? outputDir;
    if (!result.includes(output)) result.push(output);
    return result;
  }

  /**
   * Every readable directory as a caller may spell it: its real path and the name it was configured by
   * (a directory that is itself a link is readable under either), for the check made before the disk.
   */
  function readableSpellings(readable: readonly string[]): string[] {
    if (readable.length === 0) return [];
    const spellings = [...readable, outputDir];
    for (const directory of [...configured, ...roots]) {
      if (realOrResolved(directory) !== undefined) spellings.push(directory);
    }
    return spellings;
  }

  /**
   * The refusal of a path outside every readable directory: one answer whether or not it exists, naming
   * the directories only where paths may be revealed.
   */
  function outside(shown: string, granted: readonly string[]): ValidationError {
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

  async function resolveReadable(input: string): Promise<string> {
    if (typeof input !== 'string' || input.trim() === '' || input.includes('\0')) {
      throw new ValidationError('A file path is required.', [{ path: 'path', message: 'empty path' }]);
    }
    const granted = grantedDirs();
    const readable = allowedDirs();
    const expanded = input.startsWith('file:') ? fileURLToPath(input) : expandHome(input, env);
    // Relative paths resolve against the first granted directory, never the process's working directory.
    const absolute = path.resolve(granted[0] ?? outputDir, expanded);
    // What the messages call the file: a remote caller sees its own words, never where they resolved to.
    const shown = revealPaths ? absolute : input;
    const held = isHeldInput(absolute);
    // Before the disk: what lies outside is refused without learning whether it exists.
    if (!held && !readableSpellings(readable).some((root) => isInside(root, absolute))) {
      throw outside(shown, granted);
    }
    let real: string;
    try {
      real = await realpath(absolute);
    } catch (error) {
      if (!held && !(await existsAsFarAsInside(absolute, readable))) throw outside(shown, granted);
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        throw new ValidationError(`${shown} does not exist. Check the path (absolute paths are safest).`, [
          { path: 'path', message: 'not found' },
        ]);
      }
      throw denied(`${shown} cannot be accessed (${code ?? 'error'}).`);
    }
    if (readable.some((root) => isInside(root, real)) || isHeldInput(real)) return real;
    // Inside by name, outside in fact (a link leads out): the same answer as for any path outside.
    throw outside(shown, granted);
  }

  return {
    outputDir,
    inputsDir,
    revealsPaths: revealPaths,
    grantInput(realPath) {
      heldInputs.set(realPath, (heldInputs.get(realPath) ?? 0) + 1);
      let revoked = false;
      return () => {
        if (revoked) return;
        revoked = true;
        const left = (heldInputs.get(realPath) ?? 1) - 1;
        if (left > 0) heldInputs.set(realPath, left);
        else heldInputs.delete(realPath);
      };
    },
    allowedDirs,
    setRoots(dirs) {
      const next: string[] = [];
      for (const item of dirs) {
        try {
          next.push(toDirectory(item, env, 'roots'));
        } catch {
          // A root that is not a local absolute directory grants nothing.
        }
      }
      roots = next;
    },
    resolveReadable,
    async openReadable(input) {
      const real = await resolveReadable(input);
      // A remote caller's refusals name the file as the caller gave it, not its real path on this server.
      return openVerifiedFile(real, revealPaths ? {} : { name: input });
    },
    async writeOutput(name, data) {
      await mkdir(outputDir, { recursive: true, mode: 0o700 });
      const directory = await realpath(outputDir);
      const target = path.join(directory, sanitizeFileName(name));
      await writeFileAtomic(target, data as string | Uint8Array | AsyncIterable<Uint8Array>, { mode: 0o600 });
      return target;
    },
  };
}
