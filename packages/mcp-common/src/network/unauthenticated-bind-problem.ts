/**
 * Refuses to serve without authentication off loopback: anyone who can reach such a port could spend the
 * owner's credits and read or delete the owner's jobs. Only a loopback address (or `localhost`) may serve
 * without a tenants file or OAuth; every other name or address, wildcards included, needs one of them.
 */
import { classifyAddress } from '@polymodal/core/net';

export function isLoopbackHost(host: string): boolean {
  const bare = host.trim().toLowerCase();
  return bare === 'localhost' || classifyAddress(bare)?.range === 'loopback';
}

/** What is wrong with listening on `host`, or undefined when it is fine. */
export function unauthenticatedBindProblem(host: string, authRequired: boolean): string | undefined {
  if (authRequired || isLoopbackHost(host)) return undefined;
  return (
    `refusing to listen on ${host} without authentication: anyone who can reach the port could spend the ` +
    'platform credits and read or delete the jobs. Set POLYMODAL_TENANTS_FILE to a JSON file ' +
    '{"tenants":[{"id":"team-a","tokenSha256":"<sha256 of the token, hex>","apiKey":"<platform key, optional>"}]} ' +
    '(clients then send "Authorization: Bearer <token>"), or set POLYMODAL_OAUTH_ISSUER and POLYMODAL_OAUTH_AUDIENCE ' +
    'to accept access tokens of your authorization server, or listen on 127.0.0.1.'
  );
}
