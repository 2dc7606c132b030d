/**
 * Bearer tokens to tenants. The presented token is hashed (sha256) and compared with every tenant's hash
 * with `timingSafeEqual`, without stopping at a match, so the time taken says nothing about which tenant or
 * how much of a hash matched. The token itself is never stored, logged or passed on.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

export interface TokenHolder {
  /** sha256 of the token (32 bytes). */
  tokenHash: Buffer;
}

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** The token of an `Authorization: Bearer <token>` header; undefined when absent or of another scheme. */
export function parseBearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  return match?.[1];
}

export function findTenantByToken<T extends TokenHolder>(
  tenants: readonly T[],
  token: string,
): T | undefined {
  const presented = hashToken(token);
  let found: T | undefined;
  for (const tenant of tenants) {
    if (timingSafeEqual(presented, tenant.tokenHash) && found === undefined) found = tenant;
  }
  return found;
}
