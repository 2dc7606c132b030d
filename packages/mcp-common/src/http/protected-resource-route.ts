/**
 * The RFC 9728 protected-resource metadata, when OAuth access tokens are accepted: public, since a client
 * reads it before it has a token (a 401's `WWW-Authenticate` names it). Served at the well-known path and at
 * its variant suffixed with the endpoint's path (RFC 9728 §3.1), for clients that build either. Not the
 * SDK's `oauthMetadataResponse`: it builds the document from authorization-server metadata we do not fetch,
 * serves `/.well-known/oauth-authorization-server` too, and answers web `Request`s.
 */
import {
  PROTECTED_RESOURCE_WELL_KNOWN,
  type ProtectedResource,
} from '../tenants/protected-resource-metadata.js';
import { sendJson } from './json-responses.js';
import type { Route } from './route-table.js';

export function protectedResourceRoute(endpoint: string, resource: ProtectedResource): Route {
  return {
    name: 'OAuth protected-resource metadata',
    paths: [PROTECTED_RESOURCE_WELL_KNOWN, `${PROTECTED_RESOURCE_WELL_KNOWN}${endpoint}`],
    serve(_request, response) {
      // Browser-based clients read it from another origin; it holds nothing secret.
      response.setHeader('access-control-allow-origin', '*');
      sendJson(response, 200, resource.document);
    },
  };
}
