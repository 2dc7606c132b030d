/**
 * Who may call an HTTP server, and with which context. Two modes:
 *
 * - `open` (no `POLYMODAL_TENANTS_FILE`): no authentication, one context built from the environment at
 *   start and shared by every request, exactly the state a stdio server has. For loopback only: the
 *   runner refuses to bind anything else in this mode.
 * - `tenants`: callers send `Authorization: Bearer <token>`, either a token of the tenants file (compared by
 *   hash) or, with POLYMODAL_OAUTH_ISSUER, an OAuth access token of that authorization server whose tenant
 *   claim names the tenant (its platform key from the tenants file, or POLYMODAL_API_KEY for unlisted
 *   tenants with POLYMODAL_OAUTH_ANY_TENANT=1; otherwise an unlisted tenant is refused with 403). A token
 *   shaped like a JWT is checked as an access token first. Each tenant gets one context of its own (its platform key, its state and output directories),
 *   built on its first request and shared by all its requests, so pools, the job engine and the speech
 *   governor are per key rather than per client. A tenant whose key other tenants may use too (no
 *   `apiKey` of its own, or the same one as another tenant or as OAuth's unlisted tenants) reaches a job by
 *   id only when its own ledger holds it (`scopeJobsToLedger`): the platform cannot tell such tenants apart. `reload()` (SIGHUP) re-reads the file: a file that does
 *   not read keeps the tenants loaded before; a tenant removed, or whose key changed, has its context
 *   closed and its sessions ended. Tokens are never logged and never reach the platform: a context holds
 *   the tenant's platform key only.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { API_KEY_VARIABLE, defaultStateDir, resolveConfig } from '@polymodal/core/config';
import { ConfigError } from '@polymodal/core/errors';
import {
  createServerContext,
  type ServerContext,
  type ServerContextOptions,
} from '../context/create-server-context.js';
import type { Logger } from '../logging/create-logger.js';
import { createAccessTokenVerifier, looksLikeJwt } from './create-access-token-verifier.js';
import { createTenantEnv, tenantsStateRoot } from './create-tenant-env.js';
import { findTenantByToken, parseBearerToken } from './find-tenant-by-token.js';
import { type ProtectedResource, protectedResourceMetadata } from './protected-resource-metadata.js';
import {
  OAUTH_ANY_TENANT_VARIABLE,
  OAUTH_ISSUER_VARIABLE,
  type OAuthSettings,
  readOAuthSettings,
} from './read-oauth-settings.js';
import { readTenantsFile, TENANTS_FILE_VARIABLE, type TenantConfig } from './read-tenants-file.js';

export interface TenantCaller {
  /** The tenant's id; undefined in `open` mode, where there is one anonymous caller. */
  tenantId: string | undefined;
  /** The tenant's context, shared by all its requests. */
  context: ServerContext;
}

export type AuthenticationResult =
  | { ok: true; caller: TenantCaller }
  /** 401: no token, or one that is not ours (`message` says why, never quoting the token). */
  | { ok: false; reason: 'missing_token' | 'invalid_token'; message?: string }
  /** 403: a valid access token for a tenant this server does not serve; a new token would not help. */
  | { ok: false; reason: 'forbidden'; message: string }
  /** 503: the authorization server's keys cannot be read now. */
  | { ok: false; reason: 'unavailable'; message: string };

export type ReloadResult =
  | { ok: true; tenants: number; added: string[]; removed: string[]; changed: string[] }
  | { ok: false; tenants: number; reason: string };

export type Readiness = { ok: true } | { ok: false; reason: string };

export interface TenantAccess {
  readonly mode: 'open' | 'tenants';
  /** Whether callers must send a bearer token. */
  readonly authRequired: boolean;
  /** RFC 9728 metadata to publish when OAuth access tokens are accepted. */
  readonly protectedResource?: ProtectedResource;
  /** The caller for an Authorization header; builds the tenant's context on its first request. */
  authenticate(authorization: string | undefined): Promise<AuthenticationResult>;
  tenantIds(): string[];
  /** How many tenant contexts are built. */
  openContexts(): number;
  /** Re-reads the tenants file (SIGHUP). In `open` mode there is nothing to reload. */
  reload(): Promise<ReloadResult>;
  /** Whether requests can be served: the tenants file loaded and the state directory writable. */
  ready(): Promise<Readiness>;
  /** Called with a tenant's id when a reload closes its context (removed, or its key changed). */
  onRetired(listener: (tenantId: string) => void): () => void;
  /** A context to build the startup probe on: the open one, or the first tenant's (undefined without tenants). */
  probeContext(): ServerContext | undefined;
  /** Closes every context. */
  close(): Promise<void>;
}

export interface TenantAccessOptions {
  env?: NodeJS.ProcessEnv;
  /** Server name, for the contexts' log lines. */
  name?: string;
  /** Where reloads and failures are reported; tenants' keys are added to its secrets. */
  log?: Logger;
  /** Builds a context (default `createServerContext`); injectable for tests. */
  createContext?: (options: ServerContextOptions) => ServerContext;
}

interface LoadedTenant {
  id: string;
  /** sha256 of its bearer token; absent for a tenant reached only through OAuth. */
  tokenHash?: Buffer;
  /** The platform key this tenant's requests use (its own, or POLYMODAL_API_KEY). */
  apiKey: string;
  /** Whether the file gives it an `apiKey` (else it uses POLYMODAL_API_KEY, the server's). */
  ownKey: boolean;
  /** Its own daily credit budget; absent: POLYMODAL_CREDITS_PER_DAY, or no limit. */
  creditsPerDay?: number;
}

/** Builds the access for the environment; throws a ConfigError when the tenants file or the env is wrong. */
export async function createTenantAccess(options: TenantAccessOptions = {}): Promise<TenantAccess> {
  const env = options.env ?? process.env;
  const file = env[TENANTS_FILE_VARIABLE]?.trim() || undefined;
  const oauth = readOAuthSettings(env);
  if (!file && !oauth) return createOpenAccess(env, options);
  if (oauth && !file && !oauth.anyTenant) {
    throw new ConfigError(
      OAUTH_ANY_TENANT_VARIABLE,
      `${OAUTH_ISSUER_VARIABLE} is set but no tenant could be served: list the tenants (id and apiKey) in ${TENANTS_FILE_VARIABLE}, or set ${OAUTH_ANY_TENANT_VARIABLE}=1 to serve every tenant the tokens name with ${API_KEY_VARIABLE}.`,
    );
  }
  return createAuthenticatedAccess(file, oauth, env, options);
}

function createOpenAccess(env: NodeJS.ProcessEnv, options: TenantAccessOptions): TenantAccess {
  const build = options.createContext ?? createServerContext;
  // Built now, so a configuration problem stops the process before it serves.
  // Served on loopback only (the runner refuses anything else here): its clients share this machine.
  const context = build({ env, clients: 'loopback', ...(options.name ? { name: options.name } : {}) });
  const caller: TenantCaller = { tenantId: undefined, context };
  return {
    mode: 'open',
    authRequired: false,
    authenticate: async () => ({ ok: true, caller }),
    tenantIds: () => [],
    openContexts: () => 1,
    reload: async () => ({ ok: false, tenants: 0, reason: `${TENANTS_FILE_VARIABLE} is not set` }),
    ready: () => checkWritable(defaultStateDir(env), options.log),
    onRetired: () => () => {},
    probeContext: () => context,
    close: () => context.close(),
  };
}

async function createAuthenticatedAccess(
  file: string | undefined,
  oauth: OAuthSettings | undefined,
  env: NodeJS.ProcessEnv,
  options: TenantAccessOptions,
): Promise<TenantAccess> {
  const build = options.createContext ?? createServerContext;
  const log = options.log;
  // The key of tenants the file does not list, with POLYMODAL_OAUTH_ANY_TENANT=1 (checked now, not per request).
  const anyTenantKey = oauth?.anyTenant ? resolveConfig({ env }).apiKey : undefined;
  if (anyTenantKey) log?.addSecret(anyTenantKey);
  const load = async (): Promise<LoadedTenant[]> => {
    if (!file) return [];
    const configs = await readTenantsFile(file);
    const loaded = configs.map((config, index) => loadTenant(config, env, file, index, oauth !== undefined));
    for (const tenant of loaded) log?.addSecret(tenant.apiKey);
    return loaded;
  };

  let tenants = await load();
  const verifier = oauth ? createAccessTokenVerifier(oauth) : undefined;
  const contexts = new Map<string, { context: ServerContext; apiKey: string }>();
  const listeners = new Set<(tenantId: string) => void>();
  let closed = false;

  const contextOf = (tenantId: string, apiKey: string): ServerContext => {
    const existing = contexts.get(tenantId);
    if (existing?.apiKey === apiKey) return existing.context;
    const context = build({
      env: createTenantEnv(env, { id: tenantId, apiKey }),
      name: `${options.name ?? 'polymodal'}[${tenantId}]`,
      // Authenticated callers are remote: their roots never widen what this server reads.
      clients: 'remote',
      // Keeps this tenant's entries apart in a shared PostgreSQL ledger.
      tenant: tenantId,
      // Read from the tenants loaded now, so a reload that changes only a budget applies at once.
      creditsPerDay: () => tenants.find((tenant) => tenant.id === tenantId)?.creditsPerDay,
      sharedKey: () => isKeyShared(tenantId),
    });
    contexts.set(tenantId, { context, apiKey });
    // The key changed under an open context (the file was edited and not yet reloaded): the old one goes.
    if (existing) void existing.context.close();
    return context;
  };
  const callerOf = (tenantId: string, apiKey: string): AuthenticationResult => ({
    ok: true,
    caller: { tenantId, context: contextOf(tenantId, apiKey) },
  });
  /** The platform key a tenant's requests use now; undefined when it is not served. */
  const keyOf = (list: readonly LoadedTenant[], tenantId: string): string | undefined =>
    list.find((tenant) => tenant.id === tenantId)?.apiKey ?? anyTenantKey;
  /**
   * Whether other tenants may use this tenant's key, so that the platform cannot keep their jobs apart:
   * no key of its own (POLYMODAL_API_KEY, the server's), or the same key as another tenant or as the
   * unlisted tenants of POLYMODAL_OAUTH_ANY_TENANT. An unlisted tenant always shares the server's key.
   */
  const isKeyShared = (tenantId: string): boolean => {
    const tenant = tenants.find((candidate) => candidate.id === tenantId);
    if (!tenant?.ownKey) return true;
    if (anyTenantKey === tenant.apiKey) return true;
    return tenants.some((other) => other.id !== tenantId && other.apiKey === tenant.apiKey);
  };
  const byToken = (token: string) =>
    findTenantByToken(
      tenants.filter(
        (tenant): tenant is LoadedTenant & { tokenHash: Buffer } => tenant.tokenHash !== undefined,
      ),
      token,
    );

  const retire = async (tenantId: string) => {
    const entry = contexts.get(tenantId);
    contexts.delete(tenantId);
    for (const listener of listeners) listener(tenantId);
    await entry?.context.close();
  };

  if (tenants.length === 0 && !oauth?.anyTenant)
    log?.warning(`${TENANTS_FILE_VARIABLE} lists no tenants: every request is refused`);

  return {
    mode: 'tenants',
    authRequired: true,
    ...(oauth ? { protectedResource: protectedResourceMetadata(oauth) } : {}),
    async authenticate(authorization) {
      const token = parseBearerToken(authorization);
      if (token === undefined) return { ok: false, reason: 'missing_token' };
      if (closed) return { ok: false, reason: 'invalid_token' };
      if (verifier && looksLikeJwt(token)) {
        const verified = await verifier.verify(token);
        if (closed) return { ok: false, reason: 'invalid_token' };
        if (verified.ok) {
          const apiKey = keyOf(tenants, verified.tenantId);
          if (apiKey === undefined) {
            return {
              ok: false,
              reason: 'forbidden',
              message: `tenant "${verified.tenantId}" is not served here: it is not listed in ${TENANTS_FILE_VARIABLE}`,
            };
          }
          return callerOf(verified.tenantId, apiKey);
        }
        // A tenants-file token may happen to have the shape of a JWT.
        const tenant = byToken(token);
        if (tenant) return callerOf(tenant.id, tenant.apiKey);
        return verified;
      }
      const tenant = byToken(token);
      if (!tenant) return { ok: false, reason: 'invalid_token' };
      return callerOf(tenant.id, tenant.apiKey);
    },
    tenantIds: () => tenants.map((tenant) => tenant.id),
    openContexts: () => contexts.size,
    async reload() {
      let next: LoadedTenant[];
      try {
        next = await load();
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return { ok: false, tenants: tenants.length, reason };
      }
      const before = new Map(tenants.map((tenant) => [tenant.id, tenant]));
      const after = new Map(next.map((tenant) => [tenant.id, tenant]));
      const added = next.filter((tenant) => !before.has(tenant.id)).map((tenant) => tenant.id);
      const removed = tenants.filter((tenant) => !after.has(tenant.id)).map((tenant) => tenant.id);
      const changed = next
        .filter((tenant) => {
          const previous = before.get(tenant.id);
          return previous !== undefined && previous.apiKey !== tenant.apiKey;
        })
        .map((tenant) => tenant.id);
      // New tokens apply from the next request; contexts on a key no longer configured are closed.
      tenants = next;
      const stale = [...contexts.entries()]
        .filter(([tenantId, entry]) => keyOf(next, tenantId) !== entry.apiKey)
        .map(([tenantId]) => tenantId);
      const retired = new Set([...removed, ...changed, ...stale]);
      await Promise.allSettled([...retired].map((tenantId) => retire(tenantId)));
      return { ok: true, tenants: next.length, added, removed, changed };
    },
    async ready() {
      if (closed) return { ok: false, reason: 'the server is shutting down' };
      return checkWritable(tenantsStateRoot(env), log);
    },
    onRetired(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    probeContext: () => (tenants[0] ? contextOf(tenants[0].id, tenants[0].apiKey) : undefined),
    async close() {
      closed = true;
      const open = [...contexts.values()];
      contexts.clear();
      await Promise.allSettled(open.map((entry) => entry.context.close()));
    },
  };
}

function loadTenant(
  config: TenantConfig,
  env: NodeJS.ProcessEnv,
  file: string,
  index: number,
  oauth: boolean,
): LoadedTenant {
  if (config.tokenSha256 === undefined && !oauth) {
    throw new ConfigError(
      TENANTS_FILE_VARIABLE,
      `${TENANTS_FILE_VARIABLE} (${file}) tenants[${index}].tokenSha256: required unless ${OAUTH_ISSUER_VARIABLE} is set (without either, nobody could reach tenant "${config.id}").`,
    );
  }
  const apiKey = config.apiKey ?? env[API_KEY_VARIABLE]?.trim();
  if (!apiKey) {
    throw new ConfigError(
      TENANTS_FILE_VARIABLE,
      `${TENANTS_FILE_VARIABLE} (${file}): tenant "${config.id}" has no apiKey and ${API_KEY_VARIABLE} is not set; give the tenant an apiKey or set ${API_KEY_VARIABLE}.`,
    );
  }
  // Checks the base URL and the key's form now, so a reload with a bad value keeps the old tenants.
  try {
    resolveConfig({ env, apiKey });
  } catch (error) {
    if (
      !ConfigError.isInstance(error) ||
      config.apiKey === undefined ||
      error.variable !== API_KEY_VARIABLE
    ) {
      throw error;
    }
    // The message names POLYMODAL_API_KEY; the bad key is this tenant's apiKey.
    throw new ConfigError(
      TENANTS_FILE_VARIABLE,
      `${TENANTS_FILE_VARIABLE} (${file}): the apiKey of tenant "${config.id}" is not a valid key: ${error.message.replace(`${API_KEY_VARIABLE} `, 'it ')}`,
    );
  }
  return {
    id: config.id,
    apiKey,
    ownKey: config.apiKey !== undefined,
    ...(config.tokenSha256 === undefined ? {} : { tokenHash: Buffer.from(config.tokenSha256, 'hex') }),
    ...(config.budget === undefined ? {} : { creditsPerDay: config.budget.creditsPerDay }),
  };
}

/** Whether a file can be created in `dir` (created if missing); the reason never holds the path. */
async function checkWritable(dir: string, log: Logger | undefined): Promise<Readiness> {
  const probe = path.join(dir, `.ready-${process.pid}-${randomUUID()}`);
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(probe, '');
    await rm(probe, { force: true });
    return { ok: true };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    log?.warning(`not ready: cannot write in the state directory ${dir} (${code})`);
    return { ok: false, reason: `the state directory is not writable (${code}); see the server log` };
  }
}
