/**
 * `@polymodal/mcp-common/testing`: the test support every server package shares — servers connected in
 * process or over HTTP and their sandbox, tenants, raw HTTP requests, the speech the
 * sandbox saw and test tools. Views mounted in Chromium are `@polymodal/mcp-common/testing/views` and replicas
 * on PostgreSQL `@polymodal/mcp-common/testing/cluster`, entries of their own so that a test that needs
 * neither loads neither a browser driver nor a database driver. TypeScript source, for the workspace's tests only:
 * it is not published (publishConfig.exports leaves it out).
 */

export { completionOf, expectInOrder, listedPrompts, promptText } from './prompts.js';
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
export { serveTenants, type TenantsServer, teamTenants, tokenSha256 } from './serve-tenants.js';
export {
  type Connection,
  connectInMemory,
  connectInProcess,
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
export { type RawStdioServer, startRawStdio } from './stdio-raw.js';
export {
  answerOf,
  callToolRaw,
  connectTasksHost,
  expectSameResult,
  followTask,
  httpDispatch,
  modernEnvelope,
  type RawAnswer,
  settled,
  type TasksHost,
  taskRequest,
} from './tasks-requester.js';
export { connectClient, connectTools, ledgerDeps, serverWithTools, testTools } from './test-tools.js';
export { until } from './until.js';
