/**
 * Confinement of local file access. Paths come from a model or a remote client, so a path is readable
 * only if its real location (all symlinks resolved) lies inside an allowed directory, compared with
 * `path.relative` (a prefix check would let `/data/rec` admit `/data/rec_evil`). A file is opened once
 * (`openReadable`) and the descriptor itself is verified (see `openVerifiedFile`), so a path swapped between
 * check and open is caught; every later read of the call goes through that descriptor.
 *
 * A refusal must not tell a caller what exists outside (see `resolve-readable.ts`).
 *
 * Outputs are written only into the output directory, under a sanitised name, atomically.
 *
 * Remote inputs (an https URL a caller gave instead of a path, see `fetchRemoteInput`) are downloaded into
 * the private inputs directory (`<state dir>/inputs`). That directory is not an allowed directory: a file
 * in it is readable only while a call holds it (`grantInput`), so a caller can never read another call's
 * download by guessing its name, and a tenant's FileAccess never admits another tenant's inputs directory.
 */
import { mkdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { defaultStateDir } from '../config/default-state-dir.js';
import type { OpenedFile } from './open-verified-file.js';
import { openVerifiedFile } from './open-verified-file.js';
import {
  ALLOWED_DIRS_VARIABLE,
  allowedDirs,
  grantInput,
  OUTPUT_DIR_VARIABLE,
  type ReadableDirs,
  toDirectory,
} from './readable-dirs.js';
import { resolveReadable } from './resolve-readable.js';
import { sanitizeFileName } from './sanitize-file-name.js';
import { writeFileAtomic } from './write-file-atomic.js';

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
  const dirs: ReadableDirs = { configured, roots: [], outputDir, inputsDir };
  const context = { dirs, env, revealPaths };
  return {
    outputDir,
    inputsDir,
    revealsPaths: revealPaths,
    grantInput,
    allowedDirs: () => allowedDirs(dirs),
    setRoots(roots) {
      const next: string[] = [];
      for (const item of roots) {
        try {
          next.push(toDirectory(item, env, 'roots'));
        } catch {
          // A root that is not a local absolute directory grants nothing.
        }
      }
      dirs.roots = next;
    },
    resolveReadable: (input) => resolveReadable(context, input),
    async openReadable(input) {
      const real = await resolveReadable(context, input);
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
