/**
 * Counters that tests read to prove what the platform did (e.g. exactly one job after a reset-after
 * fault): named groups of per-key tallies.
 */
export interface Counters {
  /** Jobs created, per user id (all services). */
  jobsCreated: Record<string, number>;
  /** Uploads accepted, per user id. */
  uploads: Record<string, number>;
  /** Requests received, per route (`METHOD /pattern`). */
  requests: Record<string, number>;
  /** Faults applied, per kind. */
  faults: Record<string, number>;
  /** Further groups a service may add. */
  [group: string]: Record<string, number>;
}

export interface CounterRegistry {
  increment(group: string, key: string, by?: number): void;
  /** Keeps the largest value seen for `key` (a high-water mark, e.g. the most tasks unfinished at once). */
  max(group: string, key: string, value: number): void;
  snapshot(): Counters;
  reset(): void;
}

export function createCounterRegistry(): CounterRegistry {
  let groups = new Map<string, Map<string, number>>();
  return {
    increment(group, key, by = 1) {
      let tallies = groups.get(group);
      if (!tallies) {
        tallies = new Map();
        groups.set(group, tallies);
      }
      tallies.set(key, (tallies.get(key) ?? 0) + by);
    },
    max(group, key, value) {
      let tallies = groups.get(group);
      if (!tallies) {
        tallies = new Map();
        groups.set(group, tallies);
      }
      tallies.set(key, Math.max(tallies.get(key) ?? value, value));
    },
    snapshot() {
      const result: Counters = { jobsCreated: {}, uploads: {}, requests: {}, faults: {} };
      for (const [group, tallies] of groups) result[group] = Object.fromEntries(tallies);
      return result;
    },
    reset() {
      groups = new Map();
    },
  };
}
