/**
 * Takes a server's own directories out of a text shown to a caller on another machine (an HTTP tenant): a
 * path inside one is named relative to it, as the caller knows the file; the directory itself becomes "a
 * server directory". Longest first, so a directory inside another is taken out whole.
 */
import path from 'node:path';

export function hideServerPaths(text: string, dirs: readonly string[]): string {
  let hidden = text;
  for (const dir of [...dirs].filter((item) => item.length > 1).sort((a, b) => b.length - a.length)) {
    const base = dir.endsWith(path.sep) ? dir.slice(0, -1) : dir;
    hidden = hidden.split(`${base}${path.sep}`).join('').split(base).join('a server directory');
  }
  return hidden;
}
