/**
 * The key's slots held by this client's unfinished tasks. A task keeps the slot its submission took until a
 * status read sees it ready; a task nobody reads any more gives its slot back after 15 minutes, so a caller
 * that walked away cannot keep the key full for good. A slot given to a task that already holds another one
 * replaces it (the older one is given back).
 */
import type { Slot } from './concurrency-governor.js';

/** A slot of a task nobody looks at any more is freed after this long. */
const SLOT_EXPIRY_MS = 15 * 60 * 1000;

export class TaskSlots {
  readonly #held = new Map<string, { slot: Slot; timer: NodeJS.Timeout }>();
  readonly #onHold: () => void;

  /** `onHold` hears every slot taken by a task (the client counts its peak of tasks in flight). */
  constructor(onHold: () => void) {
    this.#onHold = onHold;
  }

  /** The task holds `slot` until it is seen ready, or for SLOT_EXPIRY_MS at most. */
  hold(taskId: string, slot: Slot): void {
    const timer = setTimeout(() => this.release(taskId), SLOT_EXPIRY_MS);
    timer.unref();
    const previous = this.#held.get(taskId);
    if (previous && previous.slot !== slot) {
      clearTimeout(previous.timer);
      previous.slot.release();
    }
    this.#held.set(taskId, { slot, timer });
    this.#onHold();
  }

  /** Gives the task's slot back (nothing when it holds none). */
  release(taskId: string): void {
    const entry = this.#held.get(taskId);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.#held.delete(taskId);
    entry.slot.release();
  }
}
