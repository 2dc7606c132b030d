/**
 * A `JobLedger` whose store is opened on first use. Servers build their context synchronously and must
 * start fast, so a store with a heavy driver (PostgreSQL: `pg` and a pool) is loaded only when a call
 * first needs the ledger; its location is known at once, for messages.
 */
import { LedgerError } from '@polymodal/core/errors';
import type { JobLedger } from '@polymodal/core/ledger';

export interface ClosableJobLedger extends JobLedger {
  /** Resolves once the store is open and answers (its own `ready()`, when it has one); rejects otherwise. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export interface DeferredJobLedgerOptions {
  /** Where the entries will live, for messages; never a secret. */
  location: string;
  /** Opens the store; called again after a failure, so that a store that could not load is retried. */
  load: () => Promise<LoadedLedger>;
}

type LoadedLedger = JobLedger & { ready?(): Promise<void>; close?(): Promise<void> };

export function createDeferredJobLedger(options: DeferredJobLedgerOptions): ClosableJobLedger {
  const { location } = options;
  let loading: Promise<LoadedLedger> | undefined;
  let closed = false;

  function store(): Promise<LoadedLedger> {
    if (closed) {
      return Promise.reject(new LedgerError(`The job ledger at ${location} was closed.`, { location }));
    }
    loading ??= options.load().catch((error: unknown) => {
      loading = undefined;
      throw LedgerError.isInstance(error)
        ? error
        : new LedgerError(
            `The job ledger at ${location} could not be opened (${error instanceof Error ? error.message : String(error)}).`,
            { location, cause: error },
          );
    });
    return loading;
  }

  return {
    location,
    findByFingerprint: async (service, fingerprint) =>
      (await store()).findByFingerprint(service, fingerprint),
    findById: async (service, id) => (await store()).findById(service, id),
    list: async (listOptions) => (await store()).list(listOptions),
    page: async (pageOptions) => (await store()).page(pageOptions),
    insert: async (entry) => (await store()).insert(entry),
    // The write options too: a read reservation that need not be durable commits without waiting for the
    // database's disk (PostgreSQL), which is most of what a status read costs the hosted servers.
    compareAndSet: async (service, fingerprint, revision, patch, writeOptions) =>
      (await store()).compareAndSet(service, fingerprint, revision, patch, writeOptions),
    update: async (service, fingerprint, patch) => (await store()).update(service, fingerprint, patch),
    updateById: async (service, id, patch) => (await store()).updateById(service, id, patch),
    async ready() {
      const opened = await store();
      await opened.ready?.();
    },
    async close() {
      closed = true;
      const opened = await loading?.catch(() => undefined);
      await opened?.close?.();
    },
  };
}
