/**
 * The directories a FileAccess reads from, as one small object: those configured, those the MCP client's
 * roots grant, the output directory (readable once any directory is granted, so a saved output can be fed
 * back in) and the private inputs directory, whose files are readable only while a call holds them.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expandHome } from '../config/default-state-dir.js';
import { ConfigError } from '../errors/polymodal-error.js';

/**
 * Remote inputs held by calls, by real path, counted: the same file may be held by two calls at once (an
 * identical URL). Process-wide so that a session's FileAccess view (roots) sees them too; each FileAccess
 * admits only those inside its own inputs directory.
 */
const heldInputs = new Map<string, number>();

export const ALLOWED_DIRS_VARIABLE = 'POLYMODAL_ALLOWED_DIRS';
export const OUTPUT_DIR_VARIABLE = 'POLYMODAL_OUTPUT_DIR';

export interface ReadableDirs {
  readonly configured: readonly string[];
  /** Directories the MCP client's roots grant; replaced on every roots change. */
  roots: string[];
  readonly outputDir: string;
  readonly inputsDir: string;
}

/** Directories granted by configuration or roots (not the output dir), real paths of existing ones. */
export function grantedDirs(dirs: ReadableDirs): string[] {
  const result: string[] = [];
  for (const directory of [...dirs.configured, ...dirs.roots]) {
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
export function allowedDirs(dirs: ReadableDirs): string[] {
  const result = grantedDirs(dirs);
  if (result.length === 0) return result;
  const output = realOrResolved(dirs.outputDir) ?? dirs.outputDir;
  if (!result.includes(output)) result.push(output);
  return result;
}

/**
 * Every readable directory as a caller may spell it: its real path and the name it was configured by
 * (a directory that is itself a link is readable under either), for the check made before the disk.
 */
export function readableSpellings(dirs: ReadableDirs, readable: readonly string[]): string[] {
  if (readable.length === 0) return [];
  const spellings = [...readable, dirs.outputDir];
  for (const directory of [...dirs.configured, ...dirs.roots]) {
    if (realOrResolved(directory) !== undefined) spellings.push(directory);
  }
  return spellings;
}

/** A downloaded input some call holds right now, inside this FileAccess's own inputs directory. */
export function isHeldInput(dirs: ReadableDirs, real: string): boolean {
  if (!heldInputs.has(real)) return false;
  const inputs = realOrResolved(dirs.inputsDir);
  return inputs !== undefined && path.dirname(real) === inputs;
}

/** Makes a downloaded input readable until the returned function is called (once). */
export function grantInput(realPath: string): () => void {
  heldInputs.set(realPath, (heldInputs.get(realPath) ?? 0) + 1);
  let revoked = false;
  return () => {
    if (revoked) return;
    revoked = true;
    const left = (heldInputs.get(realPath) ?? 1) - 1;
    if (left > 0) heldInputs.set(realPath, left);
    else heldInputs.delete(realPath);
  };
}

/** Whether `target` is `root` or below it; both must be real (resolved) absolute paths. */
export function isInside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return (
    relative === '' ||
    (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
  );
}

export function toDirectory(value: string, env: NodeJS.ProcessEnv, variable: string): string {
  const text = value.startsWith('file:') ? fileURLToPath(value) : expandHome(value.trim(), env);
  if (!path.isAbsolute(text)) {
    // Relative entries would depend on the host's working directory, which MCP hosts do not define.
    throw new ConfigError(variable, `${variable} entries must be absolute paths; "${value}" is relative.`);
  }
  return path.resolve(text);
}

/** The real path of a directory, or undefined when it does not exist (yet). */
export function realOrResolved(directory: string): string | undefined {
  try {
    return realpathSync(directory);
  } catch {
    return undefined;
  }
}
