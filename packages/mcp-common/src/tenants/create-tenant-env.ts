/**
 * The environment a tenant's context is built from: the server's own, with the tenant's platform key and
 * directories of its own (`<state dir>/tenants/<id>` for its job ledger, `<output dir>/<id>` for its
 * files), so one tenant's jobs, `list_jobs` and outputs are never another's.
 */
import path from 'node:path';
import { defaultStateDir, expandHome, STATE_DIR_VARIABLE } from '@polymodal/core/config';
import { OUTPUT_DIR_VARIABLE } from '@polymodal/core/files';
import { isSafeTenantId } from './tenant-id.js';

export interface TenantDirectories {
  stateDir: string;
  outputDir: string;
}

/** Where every tenant's state lives: `<state dir>/tenants`. */
export function tenantsStateRoot(env: NodeJS.ProcessEnv): string {
  return path.join(defaultStateDir(env), 'tenants');
}

export function tenantDirectories(env: NodeJS.ProcessEnv, tenantId: string): TenantDirectories {
  // The id is checked when the file is read; checked again here because it becomes a path.
  if (!isSafeTenantId(tenantId)) throw new Error(`unsafe tenant id: ${JSON.stringify(tenantId)}`);
  const configuredOutput = env[OUTPUT_DIR_VARIABLE]?.trim();
  const outputRoot = configuredOutput
    ? path.resolve(expandHome(configuredOutput, env))
    : path.join(defaultStateDir(env), 'outputs');
  return {
    stateDir: path.join(tenantsStateRoot(env), tenantId),
    outputDir: path.join(outputRoot, tenantId),
  };
}

export function createTenantEnv(
  env: NodeJS.ProcessEnv,
  tenant: { id: string; apiKey: string },
): NodeJS.ProcessEnv {
  const directories = tenantDirectories(env, tenant.id);
  return {
    ...env,
    POLYMODAL_API_KEY: tenant.apiKey,
    [STATE_DIR_VARIABLE]: directories.stateDir,
    [OUTPUT_DIR_VARIABLE]: directories.outputDir,
  };
}
