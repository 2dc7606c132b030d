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
import { API_KEY_VARIABLE, defaultStateDir, resolveConfig } from '@polymodal/core/config';
import { ConfigError } from '@polymodal/core/errors';
import { checkWritable, type Readiness } from '../context/check-writable.js';
import {
  createPlatformContext,
  type PlatformContext,
  type PlatformContextOptions,
} from '../context/create-platform-context.js';
import type { Logger } from '../logging/create-logger.js';
import {
  type AccessTokenVerifier,
  createAccessTokenVerifier,
  looksLikeJwt,
} from './create-access-token-verifier.js';
import { createTenantEnv, tenantsStateRoot } from './create-tenant-env.js';
import { parseBearerToken } from './find-tenant-by-token.js';
import { type ProtectedResource, protectedResourceMetadata } from './protected-resource-metadata.js';
import {
  OAUTH_ANY_TENANT_VARIABLE,
  OAUTH_ISSUER_VARIABLE,
  type OAuthSettings,
  readOAuthSettings,
} from './read-oauth-settings.js';
import { readTenantsFile, TENANTS_FILE_VARIABLE } from './read-tenants-file.js';
import { type LoadedTenant, loadTenant, TenantDirectory } from './tenant-directory.js';

export interface TenantCaller {
  /** The tenant's id; undefined in `open` mode, where there is one anonymous caller. */
  tenantId: string | undefined;
  /** The tenant's context, shared by all its requests. */
  context: PlatformContext;
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
  probeContext(): PlatformContext | undefined;
  /** Closes every context. */
  close(): Promise<void>;
}

export interface TenantAccessOptions {
  env?: NodeJS.ProcessEnv;
  /** Server name, for the contexts' log lines. */
  name?: string;
  /** Where reloads and failures are reported; tenants' keys are added to its secrets. */
  log?: Logger;
  /** Builds a context (default `createPlatformContext`); injectable for tests. */
  createContext?: (options: PlatformContextOptions) => PlatformContext;
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
  return createAuthenticatedAccess({ file, oauth, env, options });
}

function createOpenAccess(env: NodeJS.ProcessEnv, options: TenantAccessOptions): TenantAccess {
  const build = options.createContext ?? createPlatformContext;
  // Built now, so a configuration problem stops the process before it serves.
  // Served on loopback only (the runner refuses anything else here): its clients share this machine.
  const context = build({ env, callers: 'loopback', ...(options.name ? { name: options.name } : {}) });
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

/** The `tenants` mode: every request authenticated, each tenant on a context of its own. */
async function createAuthenticatedAccess(setup: {
  file: string | undefined;
  oauth: OAuthSettings | undefined;
  env: NodeJS.ProcessEnv;
  options: TenantAccessOptions;
}): Promise<TenantAccess> {
  const { file, oauth, env, options } = setup;
  const log = options.log;
  // The key of tenants the file does not list, with POLYMODAL_OAUTH_ANY_TENANT=1 (checked now, not per request).
  const anyTenantKey = oauth?.anyTenant ? resolveConfig({ env }).apiKey : undefined;
  if (anyTenantKey) log?.addSecret(anyTenantKey);
  const load = async (): Promise<LoadedTenant[]> => {
    if (!file) return [];
    const configs = await readTenantsFile(file);
    const loaded = configs.map((config, index) =>
      loadTenant(config, { env, file, index, oauth: oauth !== undefined }),
    );
    for (const tenant of loaded) log?.addSecret(tenant.apiKey);
    return loaded;
  };
  const directory: TenantDirectory = new TenantDirectory({
    tenants: await load(),
    anyTenantKey,
    buildContext: (tenant): PlatformContext =>
      (options.createContext ?? createPlatformContext)({
        env: createTenantEnv(env, { id: tenant.id, apiKey: tenant.apiKey }),
        name: `${options.name ?? 'polymodal'}[${tenant.id}]`,
        // Authenticated callers are remote: their roots never widen what this server reads.
        callers: 'remote',
        // Keeps this tenant's entries apart in a shared PostgreSQL ledger.
        tenant: tenant.id,
        // Read from the tenants loaded now, so a reload that changes only a budget applies at once.
        creditsPerDay: () => directory.tenant(tenant.id)?.creditsPerDay,
        sharedKey: () => directory.isKeyShared(tenant.id),
      }),
  });
  const verifier = oauth ? createAccessTokenVerifier(oauth) : undefined;
  if (directory.size() === 0 && !oauth?.anyTenant)
    log?.warning(`${TENANTS_FILE_VARIABLE} lists no tenants: every request is refused`);

  return {
    mode: 'tenants',
    authRequired: true,
    ...(oauth ? { protectedResource: protectedResourceMetadata(oauth) } : {}),
    authenticate: (authorization) => authenticateBearer(authorization, { directory, verifier }),
    tenantIds: () => directory.ids(),
    openContexts: () => directory.openContexts(),
    async reload() {
      let next: LoadedTenant[];
      try {
        next = await load();
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return { ok: false, tenants: directory.size(), reason };
      }
      return { ok: true, ...(await directory.replace(next)) };
    },
    async ready() {
      if (directory.closed) return { ok: false, reason: 'the server is shutting down' };
      return checkWritable(tenantsStateRoot(env), log);
    },
    onRetired: (listener) => directory.onRetired(listener),
    probeContext: () => directory.firstContext(),
    close: () => directory.close(),
  };
}

/** Who a bearer token names: an access token of the authorization server first, else a tenants-file token. */
async function authenticateBearer(
  authorization: string | undefined,
  { directory, verifier }: { directory: TenantDirectory; verifier: AccessTokenVerifier | undefined },
): Promise<AuthenticationResult> {
  const token = parseBearerToken(authorization);
  if (token === undefined) return { ok: false, reason: 'missing_token' };
  if (directory.closed) return { ok: false, reason: 'invalid_token' };
  if (!verifier || !looksLikeJwt(token))
    return directory.callerByToken(token) ?? { ok: false, reason: 'invalid_token' };
  const verified = await verifier.verify(token);
  if (directory.closed) return { ok: false, reason: 'invalid_token' };
  if (!verified.ok) {
    // A tenants-file token may happen to have the shape of a JWT.
    return directory.callerByToken(token) ?? verified;
  }
  return (
    directory.callerById(verified.tenantId) ?? {
      ok: false,
      reason: 'forbidden',
      message: `tenant "${verified.tenantId}" is not served here: it is not listed in ${TENANTS_FILE_VARIABLE}`,
    }
  );
}
