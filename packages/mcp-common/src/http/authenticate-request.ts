/**
 * Who is calling the MCP endpoint, or why they may not. With tenants or OAuth, a caller sends
 * `Authorization: Bearer <token>` and gets the context of its tenant; without `access` (a server embedded
 * in a process of one's own) nobody is authenticated and the factory brings its own state.
 *
 * Refusals follow RFC 6750: a missing token gets the challenge alone, a wrong one says `invalid_token`.
 * With OAuth the challenge names the protected-resource metadata (RFC 9728 §5.1), where a client finds
 * whom to ask for a token. A valid token for a tenant not served here is 403 without a challenge (a new
 * token would not help); an authorization server whose keys cannot be read now is 503 with Retry-After.
 * The bodies are JSON-RPC errors, like every refusal at the endpoint. Not the SDK's
 * `requireBearerAuth`/`bearerAuthChallengeResponse`: they answer with OAuth error bodies and know neither
 * tenants nor the 403 and 503 cases.
 */
import type http from 'node:http';
import type { Logger } from '../logging/create-logger.js';
import type { AuthenticationResult, TenantAccess, TenantCaller } from '../tenants/create-tenant-access.js';
import type { ProtectedResource } from '../tenants/protected-resource-metadata.js';
import { REFUSED, sendJsonRpcError } from './json-responses.js';

/**
 * The request's caller (undefined without `access`), or `REFUSED` once the refusal has been answered.
 */
export async function authenticateRequest(
  request: http.IncomingMessage,
  response: http.ServerResponse,
  access: TenantAccess | undefined,
  log: Logger | undefined,
): Promise<TenantCaller | undefined | typeof REFUSED> {
  if (!access) return undefined;
  const result = await access.authenticate(request.headers.authorization);
  if (result.ok) return result.caller;
  // The reason never quotes the token, so it may be logged.
  log?.debug('refused an unauthenticated request', { reason: result.reason, why: result.message });
  sendRefusal(response, result, access.protectedResource);
  return REFUSED;
}

function sendRefusal(
  response: http.ServerResponse,
  result: Exclude<AuthenticationResult, { ok: true }>,
  protectedResource: ProtectedResource | undefined,
): void {
  if (result.reason === 'forbidden') {
    sendJsonRpcError(response, 403, -32001, `forbidden: ${result.message}`);
    return;
  }
  if (result.reason === 'unavailable') {
    response.setHeader('retry-after', '5');
    sendJsonRpcError(response, 503, -32000, `${result.message}; try again shortly`);
    return;
  }
  const challenge = protectedResource
    ? `Bearer realm="polymodal", resource_metadata="${protectedResource.metadataUrl}"`
    : 'Bearer realm="polymodal"';
  const description = result.message ?? 'the bearer token is not valid';
  response.setHeader(
    'www-authenticate',
    result.reason === 'missing_token'
      ? challenge
      : `${challenge}, error="invalid_token", error_description="${description.replace(/["\\]/g, "'")}"`,
  );
  sendJsonRpcError(
    response,
    401,
    -32001,
    result.reason === 'missing_token'
      ? protectedResource
        ? `unauthorized: send "Authorization: Bearer <token>" with an access token from ${protectedResource.document.authorization_servers[0]} (see ${protectedResource.metadataUrl})`
        : 'unauthorized: send "Authorization: Bearer <token>" with a token this server was given'
      : `unauthorized: ${description}`,
  );
}
