import { ConfigError } from '@polymodal/core';
import { describe, expect, it } from 'vitest';
import { readOAuthSettings } from './read-oauth-settings.js';

const problemOf = (env: NodeJS.ProcessEnv) => {
  try {
    readOAuthSettings(env);
  } catch (error) {
    if (ConfigError.isInstance(error)) return error.message;
    throw error;
  }
  return undefined;
};

describe('readOAuthSettings', () => {
  it('is off without an issuer, and defaults the tenant claim to "tenant"', () => {
    expect(readOAuthSettings({})).toBeUndefined();
    expect(
      readOAuthSettings({
        POLYMODAL_OAUTH_ISSUER: 'https://auth.example.com',
        POLYMODAL_OAUTH_AUDIENCE: 'https://mcp.example.com/mcp',
      }),
    ).toEqual({
      issuer: 'https://auth.example.com',
      audience: 'https://mcp.example.com/mcp',
      tenantClaim: 'tenant',
      anyTenant: false,
    });
  });

  it('refuses clear-text issuers off loopback, a missing audience, and serving any tenant without a key', () => {
    expect(
      problemOf({
        POLYMODAL_OAUTH_ISSUER: 'http://auth.example.com',
        POLYMODAL_OAUTH_AUDIENCE: 'https://m/mcp',
      }),
    ).toMatch(/https URL/);
    expect(
      problemOf({
        POLYMODAL_OAUTH_ISSUER: 'http://127.0.0.1:9000',
        POLYMODAL_OAUTH_AUDIENCE: 'https://m/mcp',
      }),
    ).toBeUndefined();
    expect(problemOf({ POLYMODAL_OAUTH_ISSUER: 'https://auth.example.com' })).toMatch(
      /POLYMODAL_OAUTH_AUDIENCE is required/,
    );
    expect(problemOf({ POLYMODAL_OAUTH_AUDIENCE: 'https://m/mcp' })).toMatch(/POLYMODAL_OAUTH_ISSUER is not/);
    expect(
      problemOf({
        POLYMODAL_OAUTH_ISSUER: 'https://auth.example.com',
        POLYMODAL_OAUTH_AUDIENCE: 'https://m/mcp',
        POLYMODAL_OAUTH_ANY_TENANT: '1',
      }),
    ).toMatch(/POLYMODAL_API_KEY, which is not set/);
  });
});
