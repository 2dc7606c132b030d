/**
 * The speech service's pace, from its spec: a status read no sooner than 1 s after the start (or its
 * Retry-After), then a pause a quarter longer per read up to one read per 15 s, with up to 10 % jitter on
 * every pause; a synthesis waited on for 10 minutes at most unless the caller says otherwise.
 */
import { SPEECH_SYNTHESIS_SERVICE, serviceOf } from '../constants/service-table.js';

export const TTS_MIN_POLL_MS = serviceOf(SPEECH_SYNTHESIS_SERVICE).pollIntervalMs;
export const TTS_MAX_POLL_MS = 15_000;
export const TTS_WAIT_TIMEOUT_MS = 10 * 60 * 1000;
export const TTS_POLL_GROWTH = 1.25;
export const TTS_POLL_JITTER = 0.1;

/** `ms` stretched by up to the spec's jitter, so that many waiters do not read at the same instant. */
export function jitterOf(random: () => number): (ms: number) => number {
  return (ms) => ms * (1 + random() * TTS_POLL_JITTER);
}
