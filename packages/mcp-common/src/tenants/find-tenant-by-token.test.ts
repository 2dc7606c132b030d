import { describe, expect, it } from 'vitest';
import { findTenantByToken, hashToken, parseBearerToken } from './find-tenant-by-token.js';

describe('findTenantByToken', () => {
  const tenants = [
    { id: 'team-a', tokenHash: hashToken('token-a') },
    { id: 'team-b', tokenHash: hashToken('token-b') },
  ];

  it('finds the tenant whose token hash matches, and no tenant for any other token', () => {
    expect(findTenantByToken(tenants, 'token-b')?.id).toBe('team-b');
    expect(findTenantByToken(tenants, 'token-a')?.id).toBe('team-a');
    expect(findTenantByToken(tenants, 'token-c')).toBeUndefined();
    expect(findTenantByToken(tenants, 'token-a ')).toBeUndefined();
    expect(findTenantByToken([], 'token-a')).toBeUndefined();
  });

  it('reads only the Bearer scheme', () => {
    expect(parseBearerToken('Bearer abc.def')).toBe('abc.def');
    expect(parseBearerToken('bearer   abc')).toBe('abc');
    expect(parseBearerToken('Basic dXNlcjpwYXNz')).toBeUndefined();
    expect(parseBearerToken('Bearer')).toBeUndefined();
    expect(parseBearerToken('Bearer a b')).toBeUndefined();
    expect(parseBearerToken(undefined)).toBeUndefined();
  });
});
