/**
 * @polymodal/mcp-common/http: the Streamable HTTP runner and the tenants behind it, for embedding a server
 * in a process of one's own (and for tests). A bin reaches them only through `runServerMain` with `--http`,
 * which loads them then: this entry is kept apart from `/host` so that nothing a stdio start loads imports it.
 */
export {
  DEFAULT_SHUTDOWN_GRACE_MS,
  type HttpServerHandle,
  type RunHttpOptions,
  runHttpServer,
} from './runners/run-http-server.js';
export {
  createTenantAccess,
  type TenantAccess,
  type TenantAccessOptions,
} from './tenants/create-tenant-access.js';
