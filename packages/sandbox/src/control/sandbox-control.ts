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
   * Stops the sandbox clock: job progress, expiry and rate windows stand still however much real time
   * passes, until `advance()` moves them or `releaseClock()` lets time run again.
   */
  holdClock(): void;
  /** Lets a held clock run again from where it stands (it does not catch up with the time held). */
  releaseClock(): void;
  isClockHeld(): boolean;
  /**
   * Back to the state right after start: no jobs or uploads, configured credits and faults, an empty
   * request log, wall clock (held again when the sandbox started with a held clock).
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
  /** The sandbox started with a held clock, so a reset holds it again. */
  clockHeldAtStart: boolean;
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
    holdClock: () => options.clock.hold(),
    releaseClock: () => options.clock.release(),
    isClockHeld: () => options.clock.isHeld(),
    async reset() {
      await options.resetServices();
      options.accounts.reset();
      options.counters.reset();
      options.requestLog.clear();
      options.clock.reset();
      if (options.clockHeldAtStart) options.clock.hold();
      options.reseed();
      options.faults.set([...options.configuredFaults]);
    },
  };
}
