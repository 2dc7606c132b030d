/**
 * Keeps the number of unfinished synthesis tasks of one key at or below what the key allows
 * (`concurrentSessions`, not readable from the API). The limit is configured, or learned from the
 * `concurrentLimit` of a 429; until then at most `initialLimit` tasks run at once. Work beyond the limit
 * waits in a FIFO queue and is told its position whenever it changes. A request the service refused with
 * a 429 gives its slot back and queues again at the front: slots handed out before the limit was learned
 * are not taken back, so it must wait for one of the learned limit to free up rather than be sent again
 * into a key that is still full.
 */

export interface GovernorOptions {
  /** The key's concurrentSessions when known. */
  limit?: number;
  /** In flight while the limit is unknown. Default 4. */
  initialLimit?: number;
}

export interface Slot {
  release(): void;
}

export interface AcquireOptions {
  signal?: AbortSignal | undefined;
  onPosition?: ((position: number) => void) | undefined;
  front?: boolean;
}

/**
 * What the speech client needs of a governor: this process's `ConcurrencyGovernor`, or one shared by
 * server replicas (store-postgres keeps the slots as lease rows), so that several processes on one key
 * stay within its limit together.
 */
export interface SpeechGovernor {
  /** The key's limit, once configured or learned. */
  readonly limit: number | undefined;
  /** Slots this process holds. */
  readonly active: number;
  /** Callers of this process waiting for a slot. */
  readonly queued: number;
  /** Adopts the limit a 429 reported (at least 1). */
  learn(concurrentLimit: number): void;
  acquire(options?: AcquireOptions): Promise<Slot>;
}

interface Waiter {
  grant: (slot: Slot) => void;
  fail: (reason: unknown) => void;
  onPosition?: ((position: number) => void) | undefined;
  lastPosition: number;
}

export class ConcurrencyGovernor implements SpeechGovernor {
  #limit: number | undefined;
  #initialLimit: number;
  #active = 0;
  #queue: Waiter[] = [];

  constructor(options: GovernorOptions = {}) {
    this.#limit = options.limit;
    this.#initialLimit = options.initialLimit ?? 4;
  }

  /** The key's limit, once configured or learned. */
  get limit(): number | undefined {
    return this.#limit;
  }

  get active(): number {
    return this.#active;
  }

  get queued(): number {
    return this.#queue.length;
  }

  /** Adopts the limit a 429 reported (at least 1). */
  learn(concurrentLimit: number): void {
    if (!Number.isInteger(concurrentLimit) || concurrentLimit < 1) return;
    this.#limit = concurrentLimit;
    this.#pump();
  }

  /**
   * Waits for a slot. `onPosition` hears 1-based queue positions while waiting (not called when a slot
   * is free at once). `front` puts the caller ahead of the queue (work that already had its turn). An
   * abort removes the caller from the queue.
   */
  acquire(options: AcquireOptions = {}): Promise<Slot> {
    const { signal } = options;
    signal?.throwIfAborted();
    if (this.#queue.length === 0 && this.#active < this.#effectiveLimit()) {
      this.#active += 1;
      return Promise.resolve(this.#slot());
    }
    return new Promise<Slot>((resolve, reject) => {
      const onAbort = () => {
        const index = this.#queue.indexOf(waiter);
        if (index >= 0) this.#queue.splice(index, 1);
        this.#notifyPositions();
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        grant: (slot) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(slot);
        },
        fail: reject,
        onPosition: options.onPosition,
        lastPosition: 0,
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      if (options.front) this.#queue.unshift(waiter);
      else this.#queue.push(waiter);
      this.#notifyPositions();
    });
  }

  #effectiveLimit(): number {
    return this.#limit ?? this.#initialLimit;
  }

  #slot(): Slot {
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#active -= 1;
        this.#pump();
      },
    };
  }

  #pump(): void {
    while (this.#queue.length > 0 && this.#active < this.#effectiveLimit()) {
      const next = this.#queue.shift() as Waiter;
      this.#active += 1;
      next.grant(this.#slot());
    }
    this.#notifyPositions();
  }

  #notifyPositions(): void {
    this.#queue.forEach((waiter, index) => {
      const position = index + 1;
      if (position !== waiter.lastPosition) {
        waiter.lastPosition = position;
        try {
          waiter.onPosition?.(position);
        } catch {
          // A listener's failure must not break the queue.
        }
      }
    });
  }
}
