/**
 * Where the client keeps its state (job ledger, default outputs): per user, outside any project, in
 * the place each OS reserves for application state.
 */
import { homedir } from 'node:os';
import path from 'node:path';

export const STATE_DIR_VARIABLE = 'POLYMODAL_STATE_DIR';
const APP = 'polymodal';

/**
 * `POLYMODAL_STATE_DIR`, else `$XDG_STATE_HOME/polymodal` or `~/.local/state/polymodal` (Linux and other
 * Unix), `~/Library/Application Support/polymodal` (macOS), `%LOCALAPPDATA%\polymodal` (Windows).
 */
export function defaultStateDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  const explicit = env[STATE_DIR_VARIABLE];
  if (explicit) return path.resolve(expandHome(explicit, env));
  const home = (platform === 'win32' ? env.USERPROFILE : env.HOME) || homedir();
  if (platform === 'win32') {
    return path.win32.join(env.LOCALAPPDATA || path.win32.join(home, 'AppData', 'Local'), APP);
  }
  if (platform === 'darwin') return path.posix.join(home, 'Library', 'Application Support', APP);
  // XDG requires an absolute path; a relative one is to be ignored.
  const xdg = env.XDG_STATE_HOME;
  return path.posix.join(
    xdg && path.posix.isAbsolute(xdg) ? xdg : path.posix.join(home, '.local', 'state'),
    APP,
  );
}

/** `~` and `~/x` to the home directory (shells do this, environment files written for hosts do not). */
export function expandHome(value: string, env: NodeJS.ProcessEnv = process.env): string {
  if (value !== '~' && !value.startsWith('~/') && !value.startsWith('~\\')) return value;
  const home = (process.platform === 'win32' ? env.USERPROFILE : env.HOME) || homedir();
  return path.join(home, value.slice(1));
}
