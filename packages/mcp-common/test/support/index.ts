/**
 * `@polymodal/mcp-common/testing`: the test support every server package shares — servers connected in
 * process or over HTTP and their sandbox, tenants, raw HTTP requests, replicas on PostgreSQL, the speech the
 * sandbox saw, test tools, and views mounted in Chromium. TypeScript source, for the workspace's tests only:
 * it is not published (publishConfig.exports leaves it out).
 */
export {
  type Cluster,
  type ClusterOptions,
  type Replica,
  resultText,
  SERVER_BINS,
  startCluster,
} from './cluster.js';
export {
  clientOf,
  connectHttp,
  connectWithToken,
  INITIALIZE,
  JSON_HEADERS,
  modernRequest,
  type RawResponse,
  rawRequest,
} from './raw-http.js';
export { serveTenants, type TenantsServer } from './serve-tenants.js';
export {
  type Connection,
  connectInMemory,
  connectModernInProcess,
  GENERATIONS,
  modernClient,
  type ProtocolGeneration,
  type ServerEnv,
  type ServerHarness,
  type ServerHarnessOptions,
  sandboxSecrets,
  serverEnv,
  startSandboxAndRoot,
  startServerEnv,
  startServerHarness,
  type ToolResult,
  tenantClients,
  toolCaller,
  useServerEnv,
  withInMemoryClient,
} from './server-harness.js';
export { type SpeechSeen, speechSeenBySandbox, textOfParts } from './speech-load.js';
export { connectTools, ledgerDeps, serverWithTools, testTools } from './test-tools.js';
export { until } from './until.js';
export { CHROMIUM_PATH, type MountOptions, startViewHost, type ViewHost, viewCsp } from './view-host.js';
export {
  connectBin,
  listedTool,
  MAX_VIEW_BYTES,
  RENDERS_VIEWS,
  readView,
  saveScreenshot,
  useViewSession,
  type ViewResource,
  type ViewSession,
} from './view-session.js';
