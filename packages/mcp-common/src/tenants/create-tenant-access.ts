/**
 * Who may call an HTTP server, and with which context. Two modes:
 *
 * - `open` (no `POLYMODAL_TENANTS_FILE`): no authentication, one context built from the environment at
 *   start and shared by every request, exactly the state a stdio server has. For loopback only: the
 *   runner refuses to bind anything else in this mode.
 * - `tenants`: callers send `Authorization: Bearer <token>`; the token picks a tenant of the tenants file,
 *   and each tenant gets one context of its own (its platform key, its state and output directories),
 *   built on its first request and shared by all its requests, so pools, the job engine and the speech
 *   governor are per key rather than per client. `reload()` (SIGHUP) re-reads the file: a file that does
 *   not read keeps the tenants loaded before; a tenant removed, or whose key changed, has its context
 *   closed and its sessions ended.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { API_KEY_VARIABLE, ConfigError, defaultStateDir, resolveConfig } from '@polymodal/core';
import {
  createServerContext,
  type ServerContext,
  type ServerContextOptions,
} from '../context/create-server-context.js';
import type { Logger } from '../logging/create-logger.js';
import { createTenantEnv, tenantsStateRoot } from './create-tenant-env.js';
import { findTenantByToken, parseBearerToken } from './find-tenant-by-token.js';
import { readTenantsFile, TENANTS_FILE_VARIABLE, type TenantConfig } from './read-tenants-file.js';

export interface TenantCaller {
  /** The tenant's id; undefined in `open` mode, where there is one anonymous caller. */
  tenantId: string | undefined;
  /** The tenant's context, shared by all its requests. */
  context: ServerContext;
}

export type AuthenticationResult =
  | { ok: true; caller: TenantCaller }
  | { ok: false; reason: 'missing_token' | 'invalid_token' };

export type ReloadResult =
  | { ok: true; tenants: number; added: string[]; removed: string[]; changed: string[] }
  | { ok: false; tenants: number; reason: string };

export type Readiness = { ok: true } | { ok: false; reason: string };

export interface TenantAccess {
  readonly mode: 'open' | 'tenants';
  /** Whether callers must send a bearer token. */
  readonly authRequired: boolean;
  /** The caller for an Authorization header; builds the tenant's context on its first request. */
  authenticate(authorization: string | undefined): AuthenticationResult;
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
  tokenHash: Buffer;
  /** The platform key this tenant's requests use (its own, or POLYMODAL_API_KEY). */
  apiKey: string;
}

/** Builds the access for the environment; throws a ConfigError when the tenants file or the env is wrong. */
export async function createTenantAccess(options: TenantAccessOptions = {}): Promise<TenantAccess> {
  const env = options.env ?? process.env;
  const file = env[TENANTS_FILE_VARIABLE]?.trim();
  return file ? createTenantsFileAccess(file, env, options) : createOpenAccess(env, options);
}

function createOpenAccess(env: NodeJS.ProcessEnv, options: TenantAccessOptions): TenantAccess {
  const build = options.createContext ?? createServerContext;
  // Built now, so a configuration problem stops the process before it serves.
  const context = build({ env, ...(options.name ? { name: options.name } : {}) });
  const caller: TenantCaller = { tenantId: undefined, context };
  return {
    mode: 'open',
    authRequired: false,
    authenticate: () => ({ ok: true, caller }),
    tenantIds: () => [],
    openContexts: () => 1,
    reload: async () => ({ ok: false, tenants: 0, reason: `${TENANTS_FILE_VARIABLE} is not set` }),
    ready: () => checkWritable(defaultStateDir(env), options.log),
    onRetired: () => () => {},
    probeContext: () => context,
    close: () => context.close(),
  };
}

async function createTenantsFileAccess(
  file: string,
  env: NodeJS.ProcessEnv,
  options: TenantAccessOptions,
): Promise<TenantAccess> {
  const build = options.createContext ?? createServerContext;
  const log = options.log;
  const load = async (): Promise<LoadedTenant[]> => {
    const configs = await readTenantsFile(file);
    const loaded = configs.map((config) => loadTenant(config, env, file));
    for (const tenant of loaded) log?.addSecret(tenant.apiKey);
    return loaded;
  };

  let tenants = await load();
  const contexts = new Map<string, ServerContext>();
  const listeners = new Set<(tenantId: string) => void>();
  let closed = false;

  const contextOf = (tenant: LoadedTenant): ServerContext => {
    let context = contexts.get(tenant.id);
    if (!context) {
      context = build({
        env: createTenantEnv(env, { id: tenant.id, apiKey: tenant.apiKey }),
        name: `${options.name ?? 'polymodal'}[${tenant.id}]`,
      });
      contexts.set(tenant.id, context);
    }
    return context;
  };

  const retire = async (tenantId: string) => {
    const context = contexts.get(tenantId);
    contexts.delete(tenantId);
    for (const listener of listeners) listener(tenantId);
    await context?.close();
  };

  if (tenants.length === 0)
    log?.warning(`${TENANTS_FILE_VARIABLE} lists no tenants: every request is refused`);

  return {
    mode: 'tenants',
    authRequired: true,
    authenticate(authorization) {
      const token = parseBearerToken(authorization);
      if (token === undefined) return { ok: false, reason: 'missing_token' };
      const tenant = closed ? undefined : findTenantByToken(tenants, token);
      if (!tenant) return { ok: false, reason: 'invalid_token' };
      return { ok: true, caller: { tenantId: tenant.id, context: contextOf(tenant) } };
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
      await Promise.allSettled([...removed, ...changed].map((tenantId) => retire(tenantId)));
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
    probeContext: () => (tenants[0] ? contextOf(tenants[0]) : undefined),
    async close() {
      closed = true;
      const open = [...contexts.values()];
      contexts.clear();
      await Promise.allSettled(open.map((context) => context.close()));
    },
  };
}

function loadTenant(config: TenantConfig, env: NodeJS.ProcessEnv, file: string): LoadedTenant {
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
  return { id: config.id, tokenHash: Buffer.from(config.tokenSha256, 'hex'), apiKey };
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
