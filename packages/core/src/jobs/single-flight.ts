/**
 * Single flight within one process: identical work started while an earlier start is still running joins
 * it instead of running again (a host issuing parallel calls, an agent repeating a call during a long
 * upload). The shared work is aborted only when every caller that joined it has gone: one impatient
 * caller must not cancel the upload another caller is still waiting for.
 */
export interface SingleFlight {
  /**
   * Runs `work` for `key`, or joins the run already in flight. `signal` ends only this caller's wait;
   * the signal given to `work` aborts once all joined callers have aborted.
   */
  run<T>(key: string, signal: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** Whether work for `key` is in flight. */
  has(key: string): boolean;
}

interface Flight {
  promise: Promise<unknown>;
  controller: AbortController;
  waiting: number;
}

export function createSingleFlight(): SingleFlight {
  const flights = new Map<string, Flight>();

  function join<T>(flight: Flight, signal: AbortSignal | undefined): Promise<T> {
    flight.waiting += 1;
    if (!signal) return flight.promise as Promise<T>;
    if (signal.aborted) {
      leave(flight);
      return Promise.reject(signal.reason);
    }
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        leave(flight);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      (flight.promise as Promise<T>).then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }

  function leave(flight: Flight): void {
    flight.waiting -= 1;
    if (flight.waiting <= 0) flight.controller.abort(new Error('every caller of this work has gone'));
  }

  return {
    run(key, signal, work) {
      const existing = flights.get(key);
      if (existing) return join(existing, signal);
      const controller = new AbortController();
      const flight: Flight = { controller, waiting: 0, promise: Promise.resolve() };
      flight.promise = (async () => {
        try {
          return await work(controller.signal);
        } finally {
          flights.delete(key);
        }
      })();
      // The shared promise may settle with nobody left to observe it.
      flight.promise.catch(() => undefined);
      flights.set(key, flight);
      return join(flight, signal);
    },
    has: (key) => flights.has(key),
  };
}
