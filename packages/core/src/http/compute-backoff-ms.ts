/**
 * Exponential backoff with full jitter (AWS architecture blog, "Exponential Backoff And Jitter"):
 * spreading retries uniformly avoids synchronized retry storms after an outage.
 */
import { MAX_RETRY_AFTER_MS } from './parse-retry-after.js';

export interface BackoffOptions {
  baseDelayMs: number;
  maxDelayMs: number;
  /** Server-requested wait (Retry-After); the result is never shorter, up to 120 s. */
  retryAfterMs?: number | undefined;
  random?: () => number;
}

/**
 * Delay before retry number `attempt` (1 for the first retry): uniform in
 * [0, min(maxDelayMs, baseDelayMs × 2^(attempt−1))], raised to the Retry-After when one was given.
 */
export function computeBackoffMs(attempt: number, options: BackoffOptions): number {
  const random = options.random ?? Math.random;
  const exponent = Math.max(0, attempt - 1);
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** exponent);
  const jittered = Math.floor(Math.min(1, Math.max(0, random())) * Math.max(0, ceiling));
  if (options.retryAfterMs === undefined) return jittered;
  return Math.max(jittered, Math.min(Math.max(0, options.retryAfterMs), MAX_RETRY_AFTER_MS));
}
