/**
 * RFC 9728 protected-resource metadata: how an MCP client that got a 401 finds the authorization server to
 * get a token from. The document is public (no authentication) and holds no secret: the resource URI, the
 * issuer, and that tokens go in the Authorization header.
 *
 * Its URL is built from the resource URI (the configured audience), not from the request's Host header, so
 * a server behind a proxy advertises the address clients use; RFC 9728 §3.1 puts the well-known part
 * between the host and the resource's path (`https://h/mcp` → `https://h/.well-known/oauth-protected-resource/mcp`).
 */
import type { OAuthSettings } from './read-oauth-settings.js';

export const PROTECTED_RESOURCE_WELL_KNOWN = '/.well-known/oauth-protected-resource';

export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  bearer_methods_supported: string[];
}

export interface ProtectedResource {
  document: ProtectedResourceMetadata;
  /** Where clients read the document; named in `WWW-Authenticate: Bearer resource_metadata="…"`. */
  metadataUrl: string;
}

export function protectedResourceMetadata(settings: OAuthSettings): ProtectedResource {
  const resource = new URL(settings.audience);
  const resourcePath = resource.pathname === '/' ? '' : resource.pathname.replace(/\/$/, '');
  return {
    document: {
      resource: settings.audience,
      authorization_servers: [settings.issuer],
      bearer_methods_supported: ['header'],
    },
    metadataUrl: `${resource.origin}${PROTECTED_RESOURCE_WELL_KNOWN}${resourcePath}`,
  };
}
