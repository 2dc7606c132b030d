/**
 * @polymodal/mcp-common/host, the host runtime: building a server from tool groups (one or several), the
 * context from the environment, the stdio and Streamable HTTP runners, tenants (authentication, isolation,
 * PostgreSQL-backed state), metrics and the daily credit budget. A server package's `server.ts` and bin use
 * it; a tool file never does (it imports `@polymodal/mcp-common`). The HTTP runner and tenants, which a bin
 * loads only with `--http`, are `@polymodal/mcp-common/http`.
 */
export {
  type ContextCallers,
  createPlatformContext,
  type PlatformContext,
} from './context/create-platform-context.js';
export type { PolymodalMetrics } from './metrics/create-metrics.js';
export { type RunServerMainOptions, runServerMain } from './runners/run-server-main.js';
export type { ServerFactory, ServerFactoryRequest, ServerInstance } from './runners/server-instance.js';
export {
  type ComposedServer,
  type ComposePolymodalServersOptions,
  composePolymodalServers,
} from './server/compose-polymodal-servers.js';
export {
  createPolymodalServer,
  isReadOnlyTool,
  type PolymodalServerDeps,
  type PolymodalServerOptions,
  READ_ONLY_VARIABLE,
  readReadOnly,
} from './server/create-polymodal-server.js';
export { type PrecomputedToolList, readPrecomputedToolList } from './server/precomputed-tool-list.js';
export { UI_EXTENSION, VIEW_MIME_TYPE } from './server/sdk-server.js';
export { withoutVacuousKeywords } from './server/tool-list-json.js';
