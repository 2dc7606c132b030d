/**
 * The readiness probe of a state directory: whether paid work could be recorded there now. The answer
 * never holds the path (a remote caller may read it); the log has the details.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../logging/create-logger.js';

export type Readiness = { ok: true } | { ok: false; reason: string };

/** Whether a file can be created in `dir` (created if missing). */
export async function checkWritable(dir: string, log: Logger | undefined): Promise<Readiness> {
  // node:crypto is loaded on first use: a server started over stdio loads nothing it does not need yet.
  const probe = path.join(
    dir,
    `.ready-${process.pid}-${process.getBuiltinModule('node:crypto').randomUUID()}`,
  );
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(probe, '');
    await rm(probe, { force: true });
    return { ok: true };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    log?.warning(`not ready: cannot write in the state directory ${dir} (${code})`);
    return { ok: false, reason: `the state directory is not writable (${code}); see the server log` };
  }
}
