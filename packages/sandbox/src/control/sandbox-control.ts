/**
 * The in-process control surface of a running sandbox (the `/__sandbox/` routes call the same object):
 * faults, counters, the request log, credits, the clock and a full reset.
 */
import type { Accounts } from '../framework/accounts.js';
import type { Clock } from '../framework/clock.js';
import type { CounterRegistry, Counters } from '../framework/counters.js';
import type { ActiveFault, FaultEngine } from '../framework/fault-engine.js';
import type { FaultRule } from '../framework/fault-rule.js';
import type { LoggedRequest, RequestLog, RequestLogFilter } from '../framework/request-log.js';

export interface SandboxControl {
  /** Replaces the fault rules (validated; throws on an invalid rule). */
  setFaults(faults: FaultRule[]): void;
  clearFaults(): void;
  /** The rules still active, with the hits left of counted rules. */
  faults(): ActiveFault[];
  counters(): Counters;
  /**
   * The requests received (newest 10 000; control routes excluded), oldest first, optionally only those of
   * a method and/or whose path matches a regular expression (a string is its source).
   */
  requests(filter?: RequestLogFilter): LoggedRequest[];
  setCredits(userId: string, credits: number): void;
  getCredits(userId: string): number;
  /** The sandbox clock, in epoch milliseconds. */
  now(): number;
  /** Moves the sandbox clock forward: expires receipts and keys, finishes jobs, without waiting. */
  advance(milliseconds: number): void;
  /**
   * Back to the state right after start: no jobs or uploads, configured credits and faults, an empty
   * request log, wall clock.
   */
  reset(): Promise<void>;
}

export interface SandboxControlOptions {
  faults: FaultEngine;
  configuredFaults: readonly FaultRule[];
  counters: CounterRegistry;
  requestLog: RequestLog;
  accounts: Accounts;
  clock: Clock;
  /** Brings every service up to the clock (completed jobs charged) before a read. */
  settle(): void;
  resetServices(): Promise<void>;
  /** Restarts the seeded generator, so a reset run draws the same fault rates again. */
  reseed(): void;
}

export function createSandboxControl(options: SandboxControlOptions): SandboxControl {
  return {
    setFaults: (faults) => options.faults.set(faults),
    clearFaults: () => options.faults.clear(),
    faults: () => options.faults.list(),
    counters() {
      options.settle();
      return options.counters.snapshot();
    },
    requests: (filter) => options.requestLog.list(filter),
    setCredits(userId, credits) {
      options.settle();
      options.accounts.setCredits(userId, credits);
    },
    getCredits(userId) {
      options.settle();
      return options.accounts.getCredits(userId);
    },
    now: () => options.clock.now(),
    advance(milliseconds) {
      options.clock.advance(milliseconds);
      options.settle();
    },
    async reset() {
      await options.resetServices();
      options.accounts.reset();
      options.counters.reset();
      options.requestLog.clear();
      options.clock.reset();
      options.reseed();
      options.faults.set([...options.configuredFaults]);
    },
  };
}
