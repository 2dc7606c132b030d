/**
 * The tenants served in the `tenants` mode and the context each one's requests share: built on a tenant's
 * first request, closed when a reload removes the tenant or changes its platform key.
 */
import { API_KEY_VARIABLE, resolveConfig } from '@polymodal/core/config';
import { ConfigError } from '@polymodal/core/errors';
import type { PlatformContext } from '../context/create-platform-context.js';
import type { AuthenticationResult } from './create-tenant-access.js';
import { findTenantByToken } from './find-tenant-by-token.js';
import { OAUTH_ISSUER_VARIABLE } from './read-oauth-settings.js';
import { TENANTS_FILE_VARIABLE, type TenantConfig } from './read-tenants-file.js';

/** A tenant of the tenants file, checked. */
export interface LoadedTenant {
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

export interface TenantDirectoryOptions {
  tenants: LoadedTenant[];
  /** The platform key of tenants the file does not list (POLYMODAL_OAUTH_ANY_TENANT=1); else none is served. */
  anyTenantKey: string | undefined;
  /** Builds the context of a tenant on the key it is served with now. */
  buildContext(tenant: { id: string; apiKey: string }): PlatformContext;
}

export class TenantDirectory {
  #tenants: LoadedTenant[];
  readonly #anyTenantKey: string | undefined;
  readonly #buildContext: TenantDirectoryOptions['buildContext'];
  readonly #contexts = new Map<string, { context: PlatformContext; apiKey: string }>();
  readonly #retiredListeners = new Set<(tenantId: string) => void>();
  #closed = false;

  constructor(options: TenantDirectoryOptions) {
    this.#tenants = options.tenants;
    this.#anyTenantKey = options.anyTenantKey;
    this.#buildContext = options.buildContext;
  }

  get closed(): boolean {
    return this.#closed;
  }

  size(): number {
    return this.#tenants.length;
  }

  ids(): string[] {
    return this.#tenants.map((tenant) => tenant.id);
  }

  tenant(tenantId: string): LoadedTenant | undefined {
    return this.#tenants.find((tenant) => tenant.id === tenantId);
  }

  openContexts(): number {
    return this.#contexts.size;
  }

  /** The caller a tenants-file token names, if any. */
  callerByToken(token: string): AuthenticationResult | undefined {
    const withTokens = this.#tenants.filter(
      (tenant): tenant is LoadedTenant & { tokenHash: Buffer } => tenant.tokenHash !== undefined,
    );
    const tenant = findTenantByToken(withTokens, token);
    return tenant ? this.#caller(tenant.id, tenant.apiKey) : undefined;
  }

  /** The caller for a tenant an access token names; undefined when that tenant is not served here. */
  callerById(tenantId: string): AuthenticationResult | undefined {
    const apiKey = this.#keyOf(this.#tenants, tenantId);
    return apiKey === undefined ? undefined : this.#caller(tenantId, apiKey);
  }

  /**
   * Whether other tenants may use this tenant's key, so that the platform cannot keep their jobs apart:
   * no key of its own (POLYMODAL_API_KEY, the server's), or the same key as another tenant or as the
   * unlisted tenants of POLYMODAL_OAUTH_ANY_TENANT. An unlisted tenant always shares the server's key.
   */
  isKeyShared(tenantId: string): boolean {
    const tenant = this.tenant(tenantId);
    if (!tenant?.ownKey) return true;
    if (this.#anyTenantKey === tenant.apiKey) return true;
    return this.#tenants.some((other) => other.id !== tenantId && other.apiKey === tenant.apiKey);
  }

  /** The context to build the startup probe on: the first tenant's, if any. */
  firstContext(): PlatformContext | undefined {
    const first = this.#tenants[0];
    return first ? this.#contextOf(first.id, first.apiKey) : undefined;
  }

  /**
   * Serves `next` from the next request on: new tokens apply at once, and the contexts of tenants removed,
   * or on a key no longer configured for them, are closed.
   */
  async replace(
    next: LoadedTenant[],
  ): Promise<{ tenants: number; added: string[]; removed: string[]; changed: string[] }> {
    const before = new Map(this.#tenants.map((tenant) => [tenant.id, tenant]));
    const after = new Map(next.map((tenant) => [tenant.id, tenant]));
    const added = next.filter((tenant) => !before.has(tenant.id)).map((tenant) => tenant.id);
    const removed = this.#tenants.filter((tenant) => !after.has(tenant.id)).map((tenant) => tenant.id);
    const changed = next
      .filter((tenant) => {
        const previous = before.get(tenant.id);
        return previous !== undefined && previous.apiKey !== tenant.apiKey;
      })
      .map((tenant) => tenant.id);
    this.#tenants = next;
    const stale = [...this.#contexts.entries()]
      .filter(([tenantId, entry]) => this.#keyOf(next, tenantId) !== entry.apiKey)
      .map(([tenantId]) => tenantId);
    const retired = new Set([...removed, ...changed, ...stale]);
    await Promise.allSettled([...retired].map((tenantId) => this.#retire(tenantId)));
    return { tenants: next.length, added, removed, changed };
  }

  /** Called with a tenant's id when a reload closes its context. */
  onRetired(listener: (tenantId: string) => void): () => void {
    this.#retiredListeners.add(listener);
    return () => this.#retiredListeners.delete(listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const open = [...this.#contexts.values()];
    this.#contexts.clear();
    await Promise.allSettled(open.map((entry) => entry.context.close()));
  }

  #caller(tenantId: string, apiKey: string): AuthenticationResult {
    return { ok: true, caller: { tenantId, context: this.#contextOf(tenantId, apiKey) } };
  }

  /** The platform key a tenant's requests use now; undefined when it is not served. */
  #keyOf(list: readonly LoadedTenant[], tenantId: string): string | undefined {
    return list.find((tenant) => tenant.id === tenantId)?.apiKey ?? this.#anyTenantKey;
  }

  #contextOf(tenantId: string, apiKey: string): PlatformContext {
    const existing = this.#contexts.get(tenantId);
    if (existing?.apiKey === apiKey) return existing.context;
    const context = this.#buildContext({ id: tenantId, apiKey });
    this.#contexts.set(tenantId, { context, apiKey });
    // The key changed under an open context (the file was edited and not yet reloaded): the old one goes.
    if (existing) void existing.context.close();
    return context;
  }

  async #retire(tenantId: string): Promise<void> {
    const entry = this.#contexts.get(tenantId);
    this.#contexts.delete(tenantId);
    for (const listener of this.#retiredListeners) listener(tenantId);
    await entry?.context.close();
  }
}

/** A tenant of the file, checked: reachable, with a platform key of the right form. */
export function loadTenant(
  config: TenantConfig,
  { env, file, index, oauth }: { env: NodeJS.ProcessEnv; file: string; index: number; oauth: boolean },
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
