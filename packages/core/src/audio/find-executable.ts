/**
 * Finds a program the way a shell would (PATH, and PATHEXT on Windows) without running it, so that a
 * missing ffmpeg is known before anything else happens, and reported with how to install it.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';

async function isExecutableFile(candidate: string): Promise<boolean> {
  try {
    if (!(await stat(candidate)).isFile()) return false;
    await access(candidate, process.platform === 'win32' ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The path of `command`: itself when it names a file (it holds a separator), else the first match on PATH.
 * Undefined when there is none.
 */
export async function findExecutable(
  command: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  const extensions =
    process.platform === 'win32'
      ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';').filter((item) => item !== '')]
      : [''];
  const candidates =
    command.includes('/') || command.includes(path.sep)
      ? extensions.map((extension) => `${command}${extension}`)
      : (env.PATH ?? env.Path ?? '')
          .split(path.delimiter)
          .filter((directory) => directory !== '')
          .flatMap((directory) =>
            extensions.map((extension) => path.join(directory, `${command}${extension}`)),
          );
  for (const candidate of candidates) {
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}
