/**
 * Retry-After parsing (RFC 9110 §10.2.3): delay-seconds or an HTTP-date. Servers send garbage, negative
 * numbers and absurd delays too; none of them may stall or crash a client.
 */

/** Hard ceiling for any server-requested wait. */
export const MAX_RETRY_AFTER_MS = 120_000;

const SECONDS = /^-?\d+(\.\d+)?$/;
// IMF-fixdate, RFC 850 and asctime all start with a day name; requiring it keeps `Date.parse` (which is
// lenient and reads "1" or "foo 2" as dates) from turning garbage into a wait.
const HTTP_DATE = /^(mon|tue|wed|thu|fri|sat|sun)[a-z]*,? /i;

/**
 * Milliseconds to wait, or undefined when the header is absent or unreadable. A past date or negative
 * value gives 0; anything above `maxMs` is clamped to it.
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now: number = Date.now(),
  maxMs: number = MAX_RETRY_AFTER_MS,
): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  let delayMs: number;
  if (SECONDS.test(text)) {
    delayMs = Number(text) * 1000;
  } else if (HTTP_DATE.test(text)) {
    const date = Date.parse(text);
    if (Number.isNaN(date)) return undefined;
    delayMs = date - now;
  } else {
    return undefined;
  }
  if (!Number.isFinite(delayMs)) return delayMs > 0 ? maxMs : 0;
  return Math.min(Math.max(0, Math.ceil(delayMs)), maxMs);
}
