/**
 * Abortable sleep. Every wait in the client goes through it (or an injected replacement) so that a
 * caller's abort ends backoff and polling pauses at once, with the caller's own abort reason.
 */

/** Resolves after `ms`; rejects with `signal.reason` as soon as `signal` aborts (also if already aborted). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The `sleep` signature accepted wherever a wait can be injected (tests pass a fake). */
export type SleepFunction = (ms: number, signal?: AbortSignal) => Promise<void>;
