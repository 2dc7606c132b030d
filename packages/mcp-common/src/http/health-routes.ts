/**
 * `/healthz` (the process answers) and `/readyz` (it can serve), for load balancers and probes. They answer
 * without the Host check and without authentication, since probes address the server by IP and hold no
 * token; so they reveal nothing about tenants or configuration, only whether and why not.
 */
import type http from 'node:http';
import type { TenantAccess } from '../tenants/create-tenant-access.js';
import { sendJson } from './json-responses.js';
import type { ShutdownDrain } from './shutdown-drain.js';

export function serveHealth(response: http.ServerResponse): void {
  sendJson(response, 200, { ok: true });
}

/**
 * Not ready while shutting down (so a load balancer stops sending), when the tenants' access is not
 * (the tenants file, the state directory), or when the job store is not: without the database, paid tools
 * refuse every call.
 */
export async function serveReadiness(
  response: http.ServerResponse,
  access: TenantAccess | undefined,
  drain: ShutdownDrain,
): Promise<void> {
  let readiness = drain.isShuttingDown()
    ? { ok: false, reason: 'the server is shutting down' }
    : ((await access?.ready()) ?? { ok: true });
  if (readiness.ok) readiness = (await access?.probeContext()?.ready()) ?? readiness;
  sendJson(response, readiness.ok ? 200 : 503, readiness);
}
