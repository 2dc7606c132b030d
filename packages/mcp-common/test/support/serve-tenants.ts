/**
 * A server package's server over Streamable HTTP for the tenants of a tenants file written into `root`,
 * against a sandbox, with tool callers per bearer token: the set-up of every test of tenants over HTTP.
 * The package is imported by its name, as the server packages do, so that every module is the built one.
 */
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PlatformContext, ServerInstance } from '@polymodal/mcp-common/host';
import { createTenantAccess, type HttpServerHandle, runHttpServer } from '@polymodal/mcp-common/http';
import type { Sandbox } from '@polymodal/sandbox';
import { type Connection, tenantClients } from './server-harness.js';

export interface TenantsServer {
  handle: HttpServerHandle;
  connect(token: string): Promise<Connection['call']>;
  /** A tenant's SDK client, for prompts and completion. */
  client: ReturnType<typeof tenantClients>['client'];
  close(): Promise<void>;
}

export async function serveTenants(options: {
  sandbox: Sandbox;
  root: string;
  mediaDir: string;
  tenants: Record<string, unknown>[];
  createServer(options: { platform?: PlatformContext }): ServerInstance;
  /** Values no result may contain, besides the sandbox's keys. */
  secrets: readonly string[];
  env?: NodeJS.ProcessEnv;
}): Promise<TenantsServer> {
  const { sandbox, root } = options;
  const tenantsFile = path.join(root, 'tenants.json');
  await writeFile(tenantsFile, JSON.stringify({ tenants: options.tenants }));
  const access = await createTenantAccess({
    env: {
      POLYMODAL_BASE_URL: sandbox.url,
      POLYMODAL_API_KEY: sandbox.apiKey,
      POLYMODAL_TENANTS_FILE: tenantsFile,
      POLYMODAL_STATE_DIR: path.join(root, 'state'),
      POLYMODAL_ALLOWED_DIRS: options.mediaDir,
      POLYMODAL_OUTPUT_DIR: path.join(root, 'out'),
      POLYMODAL_LOG_LEVEL: 'error',
      POLYMODAL_POLL_INTERVAL_MS: '20',
      ...options.env,
    },
  });
  const handle = await runHttpServer(
    (request) => options.createServer(request?.platform ? { platform: request.platform } : {}),
    { port: 0, access },
  );
  const tenants = tenantClients(handle.url, [sandbox.apiKey, sandbox.apiKey2, ...options.secrets]);
  return {
    handle,
    connect: tenants.connect,
    client: tenants.client,
    async close() {
      await tenants.close();
      await handle.close();
      await access.close();
    },
  };
}

/** A bearer token as the tenants file names it: the SHA-256 of the token, in hex (never the token itself). */
export function tokenSha256(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** One tenant per token, `team-<name>`, each on the server's platform key (none of its own). */
export function teamTenants(tokens: Readonly<Record<string, string>>): Record<string, unknown>[] {
  return Object.entries(tokens).map(([name, token]) => ({
    id: `team-${name}`,
    tokenSha256: tokenSha256(token),
  }));
}
