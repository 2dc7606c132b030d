/**
 * Decides, per request, which fault rules fire. Rates use the seeded generator, so a run with the same
 * seed and the same requests fails the same way; a rule with `count` is spent after that many hits.
 * WebSocket kinds (`ws-stall`, `ws-malformed`) are considered for upgrades only, so they neither fire
 * nor spend hits on plain HTTP requests.
 */
import { z } from 'zod';
import type { CounterRegistry } from './counters.js';
import type { Prng } from './create-prng.js';
import { FaultRule, isWebSocketFaultKind } from './fault-rule.js';

export interface ActiveFault {
  rule: FaultRule;
  /** Hits left, when the rule has a count. */
  remaining: number | undefined;
}

export interface FaultDecision {
  /** Total added latency of the latency rules that fired. */
  latencyMs: number;
  /** The first non-latency rule that fired, if any. */
  terminal: FaultRule | undefined;
  /**
   * `Retry-After` that a fired latency rule adds to the normal answer (the longest, in seconds): a platform
   * pacing its clients more slowly than their own cadence, e.g. on status reads.
   */
  retryAfter?: string | undefined;
}

export interface FaultEngine {
  set(rules: readonly unknown[]): void;
  clear(): void;
  list(): ActiveFault[];
  /** `webSocket` marks an upgrade request, the only kind WebSocket faults match. */
  decide(method: string, pathname: string, options?: { webSocket?: boolean }): FaultDecision;
}

const FaultRules = z.array(FaultRule);

export class FaultRuleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FaultRuleError';
  }
}

/** Validates fault rules; throws `FaultRuleError` with every problem named. */
export function parseFaultRules(value: unknown): FaultRule[] {
  const result = FaultRules.safeParse(value);
  if (result.success) return result.data;
  const details = result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
  throw new FaultRuleError(`invalid fault rules: ${details.join('; ')}`);
}

export function createFaultEngine(options: { random: Prng; counters: CounterRegistry }): FaultEngine {
  let active: { rule: FaultRule; pattern: RegExp | undefined; remaining: number | undefined }[] = [];

  const matches = (
    rule: FaultRule,
    pattern: RegExp | undefined,
    request: { method: string; pathname: string; webSocket: boolean },
  ) => {
    const { method, pathname } = request;
    if (isWebSocketFaultKind(rule.kind) && !request.webSocket) return false;
    if (rule.match?.method && rule.match.method.toUpperCase() !== method.toUpperCase()) return false;
    return pattern ? pattern.test(pathname) : true;
  };

  // Consumes one hit of the rule when it fires; the rate draw happens only for matching rules so that
  // the sequence of draws depends on the traffic alone.
  const fires = (entry: (typeof active)[number]) => {
    if (entry.remaining !== undefined && entry.remaining <= 0) return false;
    const rate = entry.rule.rate ?? 1;
    if (rate < 1 && options.random() >= rate) return false;
    if (entry.remaining !== undefined) entry.remaining--;
    options.counters.increment('faults', entry.rule.kind);
    return true;
  };

  return {
    set(rules) {
      active = parseFaultRules(rules).map((rule) => ({
        rule,
        pattern: rule.match?.path === undefined ? undefined : new RegExp(rule.match.path),
        remaining: rule.count,
      }));
    },
    clear() {
      active = [];
    },
    list() {
      return active.map((entry) => ({ rule: entry.rule, remaining: entry.remaining }));
    },
    decide(method, pathname, decideOptions = {}) {
      const request = { method, pathname, webSocket: decideOptions.webSocket ?? false };
      let latencyMs = 0;
      let terminal: FaultRule | undefined;
      let retryAfter: string | undefined;
      for (const entry of active) {
        if (!matches(entry.rule, entry.pattern, request)) continue;
        if (entry.rule.kind === 'latency') {
          if (!fires(entry)) continue;
          latencyMs += entry.rule.latencyMs ?? 0;
          const given = entry.rule.retryAfter;
          if (given !== undefined && (retryAfter === undefined || Number(given) > Number(retryAfter))) {
            retryAfter = given;
          }
        } else if (terminal === undefined && fires(entry)) {
          terminal = entry.rule;
        }
      }
      active = active.filter((entry) => entry.remaining === undefined || entry.remaining > 0);
      return { latencyMs, terminal, ...(retryAfter === undefined ? {} : { retryAfter }) };
    },
  };
}
