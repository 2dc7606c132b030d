/**
 * Tenant ids become directory names (`<state dir>/tenants/<id>`, `<output dir>/<id>`), so only ids that are
 * one safe path segment on every OS are accepted: lower case (two ids must not share a directory on a
 * case-insensitive disk), no dots (no `.`/`..`, no hidden or trailing-dot names), no device names.
 */

export const TENANT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** Names Windows reserves in every directory, with or without an extension. */
const RESERVED_NAMES = new Set([
  'con',
  'prn',
  'aux',
  'nul',
  ...Array.from({ length: 9 }, (_, index) => `com${index + 1}`),
  ...Array.from({ length: 9 }, (_, index) => `lpt${index + 1}`),
]);

export function isSafeTenantId(id: string): boolean {
  return TENANT_ID_PATTERN.test(id) && !RESERVED_NAMES.has(id);
}
