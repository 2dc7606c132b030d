/** A per-key sliding window of request times (rate limits such as "requests per minute"). */

export interface SlidingWindow {
  /** Records a hit at `now` unless the window is full; returns the ms to wait when it is full. */
  hit(key: string, now: number): { allowed: true } | { allowed: false; retryAfterMs: number };
  clear(): void;
}

export function createSlidingWindow(options: { limit: number; windowMs: number }): SlidingWindow {
  let hits = new Map<string, number[]>();
  return {
    hit(key, now) {
      const recent = (hits.get(key) ?? []).filter((time) => now - time < options.windowMs);
      if (recent.length >= options.limit) {
        hits.set(key, recent);
        return { allowed: false, retryAfterMs: Math.max(1, recent[0]! + options.windowMs - now) };
      }
      recent.push(now);
      hits.set(key, recent);
      return { allowed: true };
    },
    clear() {
      hits = new Map();
    },
  };
}
