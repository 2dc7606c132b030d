/**
 * OAuth settings from the environment, for servers that accept access tokens of an external authorization
 * server (the MCP authorization spec's model: this server is the resource server, it never issues tokens):
 *
 * - `POLYMODAL_OAUTH_ISSUER`: the authorization server's issuer URL (https; http only on a loopback host,
 *   for tests and local development).
 * - `POLYMODAL_OAUTH_AUDIENCE`: required with the issuer. This server's canonical resource URI (e.g.
 *   `https://mcp.example.com/mcp`); a token's `aud` must contain it, so a token minted for another service
 *   is refused. It is also the `resource` of the protected-resource metadata.
 * - `POLYMODAL_OAUTH_TENANT_CLAIM` (default `tenant`): the claim naming the caller's tenant. There is no
 *   fallback to `sub`: a user id is not a team, and one tenant per user would split a team's jobs.
 * - `POLYMODAL_OAUTH_ANY_TENANT=1`: a tenant the tenants file does not list is served with
 *   POLYMODAL_API_KEY instead of being refused (off by default: an unlisted tenant gets 403).
 */
import { API_KEY_VARIABLE } from '@polymodal/core/config';
import { ConfigError } from '@polymodal/core/errors';
import { isLoopbackHost } from '../network/unauthenticated-bind-problem.js';

export const OAUTH_ISSUER_VARIABLE = 'POLYMODAL_OAUTH_ISSUER';
export const OAUTH_AUDIENCE_VARIABLE = 'POLYMODAL_OAUTH_AUDIENCE';
export const OAUTH_TENANT_CLAIM_VARIABLE = 'POLYMODAL_OAUTH_TENANT_CLAIM';
export const OAUTH_ANY_TENANT_VARIABLE = 'POLYMODAL_OAUTH_ANY_TENANT';
export const DEFAULT_TENANT_CLAIM = 'tenant';

export interface OAuthSettings {
  /** The issuer exactly as configured; tokens' `iss` must equal it. */
  issuer: string;
  /** This server's canonical resource URI; tokens' `aud` must contain it. */
  audience: string;
  tenantClaim: string;
  /** Whether tenants missing from the tenants file are served with POLYMODAL_API_KEY. */
  anyTenant: boolean;
}

/** The OAuth settings, undefined when no issuer is set; throws a ConfigError naming the variable to fix. */
export function readOAuthSettings(env: NodeJS.ProcessEnv): OAuthSettings | undefined {
  const issuer = env[OAUTH_ISSUER_VARIABLE]?.trim() ?? '';
  const audience = env[OAUTH_AUDIENCE_VARIABLE]?.trim() ?? '';
  if (issuer === '') {
    if (audience !== '') {
      throw new ConfigError(
        OAUTH_ISSUER_VARIABLE,
        `${OAUTH_AUDIENCE_VARIABLE} is set but ${OAUTH_ISSUER_VARIABLE} is not: set the authorization server's issuer URL too.`,
      );
    }
    return undefined;
  }
  checkUrl(issuer, OAUTH_ISSUER_VARIABLE, "the authorization server's issuer URL");
  if (audience === '') {
    throw new ConfigError(
      OAUTH_AUDIENCE_VARIABLE,
      `${OAUTH_AUDIENCE_VARIABLE} is required with ${OAUTH_ISSUER_VARIABLE}: set it to this server's canonical URL (e.g. https://mcp.example.com/mcp), the audience its tokens are issued for.`,
    );
  }
  checkUrl(audience, OAUTH_AUDIENCE_VARIABLE, "this server's canonical URL");
  const tenantClaim = env[OAUTH_TENANT_CLAIM_VARIABLE]?.trim() || DEFAULT_TENANT_CLAIM;
  const anyTenant = parseSwitch(env[OAUTH_ANY_TENANT_VARIABLE], OAUTH_ANY_TENANT_VARIABLE);
  if (anyTenant && !env[API_KEY_VARIABLE]?.trim()) {
    throw new ConfigError(
      OAUTH_ANY_TENANT_VARIABLE,
      `${OAUTH_ANY_TENANT_VARIABLE}=1 serves unlisted tenants with ${API_KEY_VARIABLE}, which is not set: set it, or list the tenants in POLYMODAL_TENANTS_FILE.`,
    );
  }
  return { issuer, audience, tenantClaim, anyTenant };
}

/** Whether callers must authenticate: a tenants file or an OAuth issuer is configured. */
export function isAuthenticationConfigured(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.POLYMODAL_TENANTS_FILE?.trim() || env[OAUTH_ISSUER_VARIABLE]?.trim());
}

/** https, or http on a loopback host only: tokens and keys must not be fetched or trusted in clear text. */
export function isSecureUrl(value: string): boolean {
  try {
    const url = new URL(value);
    if (url.protocol === 'https:') return true;
    return url.protocol === 'http:' && isLoopbackHost(url.hostname.replace(/^\[(.*)\]$/, '$1'));
  } catch {
    return false;
  }
}

function checkUrl(value: string, variable: string, what: string): void {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || !isSecureUrl(value) || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new ConfigError(
      variable,
      `${variable} must be ${what} as an https URL without credentials or fragment (http only on a loopback host).`,
    );
  }
}

function parseSwitch(value: string | undefined, variable: string): boolean {
  const normalized = value?.trim().toLowerCase() ?? '';
  if (['', '0', 'false', 'no', 'off'].includes(normalized)) return false;
  if (['1', 'true', 'yes', 'on'].includes(normalized)) return true;
  throw new ConfigError(variable, `${variable} must be 1 (on) or 0 (off).`);
}
