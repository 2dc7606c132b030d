/**
 * Completion of a file argument: the folders and files a tool of the server may read, as the person types
 * a path. It offers what the tools would accept and nothing else:
 * - only inside the readable directories (the directory typed so far must resolve inside one, through the
 *   same confinement the tools use, so a link leading out offers nothing);
 * - only regular files with an extension the tool takes, and folders; never a link, a hidden entry, a FIFO
 *   or a device (the tools refuse links and special files);
 * - on stdio (a person on this machine) paths are absolute or relative as typed, and an empty value offers
 *   the readable directories themselves;
 * - over HTTP never a path of the server: only paths relative to the first readable directory, the way the
 *   tools resolve a relative path for a remote caller. An absolute path, `~`, `file:` or `..` offers nothing.
 * A directory is read up to `MAX_SCANNED_ENTRIES` entries: a larger one answers what was found with
 * `hasMore`, so a completion costs the same in a folder of a million files.
 */
import { opendir } from 'node:fs/promises';
import path from 'node:path';
import type { FileAccess } from '@polymodal/core/files';
import type { ToolDeps } from '../tools/tool-deps.js';
import { type Completion, type CompletionSource, MAX_COMPLETION_VALUES, matching } from './completion.js';

/** How many entries of one directory a completion reads at most. */
export const MAX_SCANNED_ENTRIES = 2_000;

/** A source offering readable files with one of `extensions` (lowercase, with the dot) and the folders. */
export function readablePaths(extensions: readonly string[]): CompletionSource<Pick<ToolDeps, 'platform'>> {
  const accepted = new Set(extensions.map((extension) => extension.toLowerCase()));
  return async ({ value, deps, signal, overHttp }) => {
    const { files } = deps.platform;
    const readable = files.allowedDirs();
    if (readable.length === 0) return { values: [] };
    // What the person typed up to its last separator is the folder; the rest starts the name.
    const folder = value.slice(0, value.lastIndexOf('/') + 1);
    const remote = overHttp || !files.revealsPaths;
    if (remote && !isPlainRelative(value)) return { values: [] };
    if (!remote && value === '') return { values: readable.map((directory) => `${directory}/`) };
    const listed = await listFolder(files, folder, value.slice(folder.length), { accepted, signal });
    if (remote || listed.values.length > 0 || !path.isAbsolute(value)) return listed;
    // A person typing the start of a readable directory's own path (above every readable folder).
    return matching(
      readable.map((directory) => `${directory}/`),
      value,
    );
  };
}

/** A relative path without `..`, `~`, a scheme or a backslash: the only spelling a remote caller is offered. */
function isPlainRelative(typed: string): boolean {
  if (typed.startsWith('/') || typed.startsWith('~') || typed.includes('\\') || typed.includes('\0')) {
    return false;
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(typed)) return false;
  return !typed.split('/').includes('..');
}

/**
 * The entries of the folder typed so far whose names start with `start`, spelled as the person spelled
 * the folder; nothing when that folder is not inside a readable directory.
 */
async function listFolder(
  files: FileAccess,
  folder: string,
  start: string,
  options: { accepted: ReadonlySet<string>; signal: AbortSignal },
): Promise<Completion> {
  let real: string;
  try {
    // Relative to the first readable directory, as the tools resolve it; confined as they confine it.
    real = await files.resolveReadable(folder === '' ? '.' : folder);
  } catch {
    return { values: [] };
  }
  const names: string[] = [];
  let scanned = 0;
  let hasMore = false;
  try {
    for await (const entry of await opendir(real)) {
      if (options.signal.aborted || ++scanned > MAX_SCANNED_ENTRIES) {
        hasMore = true;
        break;
      }
      if (entry.name.startsWith('.') || !entry.name.toLowerCase().startsWith(start.toLowerCase())) continue;
      if (entry.isDirectory()) names.push(`${entry.name}/`);
      else if (entry.isFile() && options.accepted.has(path.extname(entry.name).toLowerCase())) {
        names.push(entry.name);
      }
    }
  } catch {
    // Not a folder (a file typed up to a slash), or unreadable: nothing to offer there.
    return { values: [] };
  }
  names.sort((a, b) => a.localeCompare(b));
  const values = names.slice(0, MAX_COMPLETION_VALUES).map((name) => folder + name);
  return { values, hasMore: hasMore || names.length > MAX_COMPLETION_VALUES };
}
