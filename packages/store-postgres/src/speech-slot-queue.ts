/**
 * The callers of one process waiting for a slot of the key: a FIFO queue (`front` for work that already had
 * its turn), each caller told its 1-based position whenever it changes — only callers that could not be
 * served at once, as core's governor does — and taken out of the queue when its signal aborts.
 */
import type { AcquireOptions, Slot } from '@polymodal/core';

export interface Waiter {
  grant: (slot: Slot) => void;
  fail: (reason: unknown) => void;
  onPosition?: ((position: number) => void) | undefined;
  lastPosition: number;
}

/** Queues a caller; resolves with the slot it is granted, rejects when it fails or its signal aborts. */
export function enqueue(queue: Waiter[], options: AcquireOptions): Promise<Slot> {
  const { signal } = options;
  return new Promise<Slot>((resolve, reject) => {
    const onAbort = () => {
      const index = queue.indexOf(waiter);
      if (index >= 0) queue.splice(index, 1);
      notifyPositions(queue);
      reject(signal?.reason);
    };
    const waiter: Waiter = {
      grant: (slot) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(slot);
      },
      fail: (reason) => {
        signal?.removeEventListener('abort', onAbort);
        reject(reason);
      },
      onPosition: options.onPosition,
      lastPosition: 0,
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    if (options.front) queue.unshift(waiter);
    else queue.push(waiter);
    // Positions are told only to callers that could not be served at once.
    if (queue.length > 1) notifyPositions(queue);
  });
}

/** Tells every waiting caller whose position changed its new one. */
export function notifyPositions(queue: readonly Waiter[]): void {
  queue.forEach((waiter, index) => {
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
