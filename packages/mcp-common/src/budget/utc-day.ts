/**
 * The budget's day is the UTC day: the same for every replica and tenant whatever their time zone, and
 * it starts again at 00:00 UTC.
 */

/** `YYYY-MM-DD` of the UTC day `time` (epoch ms) falls in. */
export function utcDay(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}
