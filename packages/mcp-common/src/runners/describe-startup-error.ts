/**
 * The one line a bin prints to stderr when it cannot start: the configuration problem as core words it
 * (naming the variable, never the value), redacted once more to be safe.
 */

import { redactSecrets } from '@polymodal/core/config';
import { ConfigError } from '@polymodal/core/errors';

export function describeStartupError(error: unknown, env: NodeJS.ProcessEnv = process.env): string {
  const key = env.POLYMODAL_API_KEY?.trim();
  const secrets = key ? [key] : [];
  const message = error instanceof Error ? error.message : String(error);
  const text = ConfigError.isInstance(error)
    ? `configuration error: ${message}`
    : `failed to start: ${message}`;
  return redactSecrets(text, secrets);
}
