/**
 * One writer at a time per entry: across processes a lock directory per entry (proper-lockfile, with stale
 * detection, a well-kept library used by npm's own tooling, rather than a lock protocol of our own), and
 * within this process a queue per entry, so that this process's own writers never contend for the lock.
 */
import { mkdirSync, realpath, rmdirSync, type Stats, statSync, utimesSync } from 'node:fs';
import path from 'node:path';

/** A lock not refreshed for this long belongs to a dead process and is taken over. */
const LOCK_STALE_MS = 10_000;
/** Waits out another process's lock for up to about 10 s (200 attempts, 5 to 50 ms apart). */
const LOCK_RETRIES = { retries: 200, minTimeout: 5, maxTimeout: 50, factor: 1.3 };

type Callback<R> = (error: Error | null, result?: R) => void;

/** Runs `step` now and hands its result (or error) to `callback` on the next tick, as an async call would. */
function later<R>(step: () => R, callback: Callback<R>): void {
  let result: R;
  try {
    result = step();
  } catch (error) {
    process.nextTick(callback, error as Error);
    return;
  }
  process.nextTick(callback, null, result);
}

/**
 * The file system proper-lockfile takes its lock with: the same steps (make the lock directory, stat it,
 * refresh its mtime, remove it) made synchronously, their callbacks called on the next tick. Its default,
 * graceful-fs, sends each step through the thread pool, four round trips per lock and release, the
 * largest CPU cost of a status read on the file store when measured. The lock directory is in the local
 * state directory, like the entries read synchronously. One object for the process: proper-lockfile keeps
 * its probe of the file system's mtime precision on it.
 */
const LOCK_FS = {
  mkdir: (file: string, callback: Callback<void>) => later(() => mkdirSync(file), callback),
  rmdir: (file: string, callback: Callback<void>) => later(() => rmdirSync(file), callback),
  stat: (file: string, callback: Callback<Stats>) => later(() => statSync(file), callback),
  utimes: (file: string, atime: Date, mtime: Date, callback: Callback<void>) =>
    later(() => utimesSync(file, atime, mtime), callback),
  // Not used (realpath: false below); proper-lockfile's interface has it.
  realpath,
  rmdirSync,
};

const LOCK_OPTIONS = {
  realpath: false,
  fs: LOCK_FS,
  stale: LOCK_STALE_MS,
  // A lock lost to a stalled event loop must not crash the process: the revision check still refuses a
  // write based on an outdated read.
  onCompromised: () => undefined,
};

/** proper-lockfile, loaded with the first write (see `EntryLocks.hold`). */
let lockfile: typeof import('proper-lockfile') | undefined;

export class EntryLocks {
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Entry directories made (or found) by this ledger: made again only when a lock finds one gone. */
  private readonly madeDirs = new Set<string>();

  /** Runs `task` holding the entry's lock: one writer at a time across processes (and, queued, here). */
  hold<T>(file: string, task: () => Promise<T>): Promise<T> {
    return this.queue(file, async () => {
      const directory = path.dirname(file);
      if (!this.madeDirs.has(directory)) this.makeDir(directory);
      const release = await this.lock(file, directory);
      try {
        return await task();
      } finally {
        await release().catch(() => undefined);
      }
    });
  }

  /**
   * Runs `task` holding the lock if it is free now; undefined, without waiting, when another process
   * holds it (for work that has a slower way round, such as a migration another process is making).
   */
  tryHold<T>(file: string, task: () => Promise<T>): Promise<{ result: T } | undefined> {
    return this.queue(file, async () => {
      const directory = path.dirname(file);
      if (!this.madeDirs.has(directory)) this.makeDir(directory);
      lockfile ??= (await import('proper-lockfile')).default;
      let release: () => Promise<void>;
      try {
        release = await lockfile.lock(file, { ...LOCK_OPTIONS, retries: 0 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ELOCKED') return undefined;
        throw error;
      }
      try {
        return { result: await task() };
      } finally {
        await release().catch(() => undefined);
      }
    });
  }

  private async lock(file: string, directory: string): Promise<() => Promise<void>> {
    // Loaded with the first write (with graceful-fs and signal-exit, which patch fs and hook exit signals):
    // a server that only starts and lists its tools never needs it.
    lockfile ??= (await import('proper-lockfile')).default;
    try {
      // One attempt first: this process already queues its own writers, so the lock is nearly always free,
      // and an attempt without retries does not build the schedule of 200 retries.
      return await lockfile.lock(file, { ...LOCK_OPTIONS, retries: 0 });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') this.makeDir(directory);
      else if (code !== 'ELOCKED') throw error;
      return lockfile.lock(file, { ...LOCK_OPTIONS, retries: LOCK_RETRIES });
    }
  }

  private makeDir(directory: string): void {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    this.madeDirs.add(directory);
  }

  /** Runs `task` after every earlier task on the same key (this process only). */
  private queue<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(key) ?? Promise.resolve();
    const next = previous.then(task, task);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(key, settled);
    void settled.then(() => {
      if (this.queues.get(key) === settled) this.queues.delete(key);
    });
    return next;
  }
}
