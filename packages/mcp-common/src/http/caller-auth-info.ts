/**
 * How the authenticated caller reaches the server factory through the SDK's per-request handler: the
 * handler passes `AuthInfo` on to the factory's request context, so the caller rides in its `extra`. Its
 * token is not handed on (nothing past authentication needs it), so `token` is empty.
 */
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { TenantCaller } from '../tenants/create-tenant-access.js';

const CALLER = 'polymodal/caller';

export function authInfoOf(caller: TenantCaller | undefined): AuthInfo | undefined {
  return caller
    ? { token: '', clientId: caller.tenantId ?? 'local', scopes: [], extra: { [CALLER]: caller } }
    : undefined;
}

export function callerOf(authInfo: AuthInfo | undefined): TenantCaller | undefined {
  return authInfo?.extra?.[CALLER] as TenantCaller | undefined;
}
