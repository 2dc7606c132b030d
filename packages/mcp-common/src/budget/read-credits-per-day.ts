/**
 * The daily credit budget's configuration: `POLYMODAL_CREDITS_PER_DAY` for a server without tenants (and
 * the default of tenants whose entry in the tenants file sets no `budget`). Unset means no limit.
 */
import { ConfigError } from '@polymodal/core/errors';

export const CREDITS_PER_DAY_VARIABLE = 'POLYMODAL_CREDITS_PER_DAY';

/** The configured daily budget in credits; undefined when unset; a ConfigError when malformed. */
export function readCreditsPerDay(env: NodeJS.ProcessEnv): number | undefined {
  const value = env[CREDITS_PER_DAY_VARIABLE]?.trim();
  if (value === undefined || value === '') return undefined;
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < 0) {
    throw new ConfigError(
      CREDITS_PER_DAY_VARIABLE,
      `${CREDITS_PER_DAY_VARIABLE} must be a whole number of credits, 0 or more (the most this server may ` +
        'spend per UTC day; leave it unset for no limit).',
    );
  }
  return parsed;
}
