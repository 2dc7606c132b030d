/**
 * What a PostgreSQL connection string may show and what it must hide: the location for messages
 * (`postgres://user:***@host:5432/db`) and the secrets in it (the password in every form it can appear in).
 * Free of `pg`, so that a server can check its configuration at start without loading the driver.
 */
import { ConfigError } from '@polymodal/core/errors';

/** The environment variable that selects the PostgreSQL store. */
export const DATABASE_URL_VARIABLE = 'POLYMODAL_DATABASE_URL';

export interface DatabaseUrlDescription {
  /** The URL with its password masked, for messages and `JobLedger.location`. */
  location: string;
  /** Values that must never appear in a message or a log line: the password (raw and encoded), the URL. */
  secrets: string[];
}

/** Query parameters libpq and `pg` read a password from. */
const SECRET_PARAMETERS = new Set(['password', 'sslpassword']);
const EXAMPLE = 'postgres://user:password@host:5432/database';

/**
 * Describes a `postgres://` or `postgresql://` URL, or throws core's `ConfigError` naming `variable`
 * (never the value, which may hold a password).
 */
export function describeDatabaseUrl(text: string, variable = DATABASE_URL_VARIABLE): DatabaseUrlDescription {
  const trimmed = text.trim();
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new ConfigError(variable, `${variable} is not a valid URL: use ${EXAMPLE}.`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(variable, `${variable} must be a PostgreSQL URL (${EXAMPLE}).`);
  }

  const secrets = new Set<string>([trimmed]);
  if (url.password) {
    secrets.add(url.password);
    secrets.add(safeDecode(url.password));
  }
  const query: string[] = [];
  for (const [name, value] of url.searchParams) {
    const secret = SECRET_PARAMETERS.has(name.toLowerCase());
    if (secret && value) {
      secrets.add(value);
      secrets.add(encodeURIComponent(value));
    }
    query.push(`${name}=${secret ? '***' : value}`);
  }
  const user = url.username ? `${url.username}${url.password ? ':***' : ''}@` : '';
  const location = `${url.protocol}//${user}${url.host}${url.pathname}${query.length > 0 ? `?${query.join('&')}` : ''}`;
  return { location, secrets: [...secrets].filter((secret) => secret.length > 0) };
}

/** `text` with every secret replaced by `***`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let redacted = text;
  // Longest first, so that a password inside the URL does not leave the rest of the URL behind.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret) redacted = redacted.split(secret).join('***');
  }
  return redacted;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
