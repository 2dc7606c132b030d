/**
 * A `SpeechGovernor` whose store is opened on the first slot asked for. Servers build their context
 * synchronously and must start fast, and most never synthesise speech, so the governor shared by replicas
 * (PostgreSQL: `pg`, a pool, its migrations) is loaded only when speech first needs a slot; until then it
 * answers from what it was configured with.
 */
import type { AcquireOptions, Slot, SpeechGovernor } from '@polymodal/core';
import { LedgerError } from '@polymodal/core/errors';

export interface ClosableSpeechGovernor extends SpeechGovernor {
  close(): Promise<void>;
}

export interface DeferredSpeechGovernorOptions {
  /** Where the slots live, for messages; never a secret. */
  location: string;
  /** The key's concurrentSessions when configured, shown as the limit before the store is open. */
  limit?: number | undefined;
  /** Opens the store; called again after a failure, so that a store that could not load is retried. */
  load: () => Promise<SpeechGovernor & { close?(): Promise<void> }>;
}

export function createDeferredSpeechGovernor(options: DeferredSpeechGovernorOptions): ClosableSpeechGovernor {
  const { location } = options;
  let loading: Promise<SpeechGovernor & { close?(): Promise<void> }> | undefined;
  let opened: (SpeechGovernor & { close?(): Promise<void> }) | undefined;
  let learned: number | undefined;
  let waitingForStore = 0;
  let closed = false;

  function store(): Promise<SpeechGovernor & { close?(): Promise<void> }> {
    if (closed) {
      return Promise.reject(new LedgerError(`The speech governor at ${location} was closed.`, { location }));
    }
    loading ??= options.load().then(
      (governor) => {
        opened = governor;
        return governor;
      },
      (error: unknown) => {
        loading = undefined;
        throw LedgerError.isInstance(error)
          ? error
          : new LedgerError(
              `The speech governor at ${location} could not be opened (${error instanceof Error ? error.message : String(error)}).`,
              { location, cause: error },
            );
      },
    );
    return loading;
  }

  return {
    get limit() {
      return opened?.limit ?? options.limit ?? learned;
    },
    get active() {
      return opened?.active ?? 0;
    },
    get queued() {
      return (opened?.queued ?? 0) + waitingForStore;
    },
    learn(concurrentLimit) {
      learned = concurrentLimit;
      // Told at once when the store is open: a refused request gives its slot back right after learning,
      // and the store gives it back only once the limit is stored, so that no replica fills the freed slot
      // while it still counts with the old limit (a second 429). Passed on a tick later, the slot went
      // back first.
      if (opened) {
        opened.learn(concurrentLimit);
        return;
      }
      // A limit learned before the store opened still reaches it (and through it, every replica); a store
      // that cannot open refuses the next slot anyway, so nothing more is done about it here.
      store().then(
        (governor) => governor.learn(concurrentLimit),
        () => undefined,
      );
    },
    async acquire(acquireOptions: AcquireOptions = {}): Promise<Slot> {
      acquireOptions.signal?.throwIfAborted();
      waitingForStore += 1;
      let governor: SpeechGovernor;
      try {
        governor = await store();
      } finally {
        waitingForStore -= 1;
      }
      acquireOptions.signal?.throwIfAborted();
      return governor.acquire(acquireOptions);
    },
    async close() {
      closed = true;
      const governor = await loading?.catch(() => undefined);
      await governor?.close?.();
    },
  };
}
