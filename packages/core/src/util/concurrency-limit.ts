/**
 * At most `max` of the given tasks run at once; the others wait their turn, first come first served. Used
 * where many callers at once would each open many files (the file ledger's `list` reads every entry): without
 * a bound, 200 concurrent `list_jobs` opened 20,000 files and met the process's open-file limit (EMFILE).
 */
export interface ConcurrencyLimit {
  run<T>(task: () => Promise<T>): Promise<T>;
}

export function createConcurrencyLimit(max: number): ConcurrencyLimit {
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`max must be a whole number ≥ 1, not ${max}`);
  let active = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else active -= 1;
  };
  return {
    async run(task) {
      if (active < max) active += 1;
      // The slot is handed over by release(): `active` stays counted for the task that takes it.
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}
