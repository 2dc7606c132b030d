/**
 * Helpers shared by the media services: `x-api-key` authentication that also yields the key (per-key
 * limits are kept in memory only; the key never leaves the process), usage records per user and team,
 * seeds, and the markers that make a simulated job fail or end cancelled on purpose.
 */
import type { SandboxUser } from '../framework/accounts.js';
import type { CounterRegistry } from '../framework/counters.js';
import { HttpError } from '../framework/http-error.js';
import type { RequestContext } from '../framework/request-context.js';

/** The safe seed range of the video services: non-negative seeds above it are clamped to it. */
export const MAX_SAFE_SEED = 2_147_483_647;
/** Put in a prompt, text, file name or URL: the job fails (a documented sandbox trigger). */
export const FAIL_MARKER = '[sandbox:fail]';
/** Put in a prompt, file name or URL: the job ends cancelled (a documented sandbox trigger). */
export const CANCEL_MARKER = '[sandbox:cancel]';

export interface MediaCaller {
  user: SandboxUser;
  /** The API key, to key per-key limits; never logged or returned. */
  key: string;
}

export function authenticateMedia(request: RequestContext): MediaCaller {
  const { user } = request.authenticate(['x-api-key']);
  const header = request.request.headers['x-api-key'];
  const key = (Array.isArray(header) ? header[0] : header)?.trim() ?? '';
  return { user, key };
}

/** Records a created job: `jobsCreated` and the service's group per user, and usage per team. */
export function recordJob(counters: CounterRegistry, user: SandboxUser, group: string, units = 1): void {
  counters.increment('jobsCreated', user.id);
  counters.increment(group, user.id);
  counters.increment('teamUsage', `${user.team}:${group}`, units);
}

/** True when a text carries a marker (case-insensitive; `[sandbox:fail]` or `sandbox-fail` in URLs). */
export function hasMarker(text: string | undefined, marker: string): boolean {
  if (!text) return false;
  const lower = text.toLowerCase();
  const word = marker.slice(1, -1).replace(':', '-');
  return lower.includes(marker) || lower.includes(word);
}

/** Reads a JSON object body; anything else is a 400. */
export async function readObject(
  request: RequestContext,
  maxBytes?: number,
): Promise<Record<string, unknown>> {
  const body = await request.readJson(maxBytes);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(400, 'the request body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

/** Refuses fields outside the documented set, naming them. */
export function rejectUnknownFields(body: Record<string, unknown>, known: readonly string[]): void {
  const unknown = Object.keys(body).filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new HttpError(
      400,
      `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; accepted: ${known.join(', ')}`,
    );
  }
}

/** Video seed: -1, any negative or omitted = random (undefined); non-negative clamped to the safe range. */
export function parseVideoSeed(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value))
    throw new HttpError(400, 'seed must be an integer');
  if (value < 0) return undefined;
  return Math.min(value, MAX_SAFE_SEED);
}

/** A per-day key (UTC) of a sandbox-clock time. */
export function dayOf(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}
