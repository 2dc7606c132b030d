/**
 * Last line of defence against leaking credentials: every text that may leave the process (error
 * messages, logs, tool results) can be passed through `redactSecrets`.
 */

const MASK = '***';
/** `api_key=...` in a URL or a form body, whatever the key value looks like. */
const API_KEY_PARAMETER = /(\bapi_key=)[^&\s#"'<>]+/gi;

/** Replaces every occurrence of each secret, and any `api_key=` query value, with `***`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let result = text;
  // Longest first, so that a secret containing a shorter one is masked whole.
  const ordered = [...new Set(secrets)]
    .filter((secret) => secret.length > 0)
    .sort((a, b) => b.length - a.length);
  for (const secret of ordered) {
    result = result.split(secret).join(MASK);
  }
  return result.replace(API_KEY_PARAMETER, `$1${MASK}`);
}
