/**
 * One Polymodal MCP server: the SDK server with logging and instructions, the context built from the
 * environment (or shared), roots kept in sync with the file access, and the server's tools registered.
 * Each server's `server.ts` is one call of this, so what every server does alike lives here once (and a
 * move to the SDK's next major version touches this file, not three).
 *
 * A shared context (the HTTP runner's per-tenant one) serves many clients at once, so a client's roots are
 * never applied to its file access (they would widen what every other client of the tenant may read): they
 * apply to that client's own tool calls only, asked for within a call (see `syncSessionRoots`).
 *
 * Roots name directories on the client's machine. They are honoured only where that machine is this one
 * (stdio, or HTTP on loopback without authentication); for an authenticated (remote) client they are
 * never asked for and never widen what the server reads (see `ContextClients`).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Icon } from '@modelcontextprotocol/sdk/types.js';
import { createServerContext, type ServerContext } from '../context/create-server-context.js';
import type { RemoteInputsTestSeam } from '../inputs/resolve-tool-inputs.js';
import type { PolymodalMetrics } from '../metrics/create-metrics.js';
import { instrumentTools } from '../metrics/instrument-tools.js';
import { processMetricsSink } from '../metrics/process-metrics-sink.js';
import { linkOutputResources } from '../outputs/link-output-resources.js';
import { registerOutputResources } from '../outputs/output-resources.js';
import { type RootsSync, syncRoots } from '../roots/sync-roots.js';
import { syncSessionRoots } from '../roots/sync-session-roots.js';
import type { ServerInstance } from '../runners/server-instance.js';
import { cacheToolList } from './cache-tool-list.js';
import { decorateToolList, registerWithIcons } from './decorate-tool-list.js';
import { LazyJsonSchemaValidator, loadBeforeElicitation } from './lazy-json-schema-validator.js';
import { loadPlatformClientFirst } from './load-platform-client-first.js';
import { answerFromPrecomputedToolList, type PrecomputedToolList } from './precomputed-tool-list.js';
import { isReadOnlyTool, readReadOnly, registerToolsWhere } from './register-tools-where.js';

/** What every tool of a Polymodal server receives. */
export interface ToolContext {
  context: ServerContext;
  roots: RootsSync;
  /** Seconds one tool call may take before it answers with what it has. */
  toolDeadlineSeconds: number;
  /** How remote inputs reach their hosts (tests only; see `PolymodalServerDeps.remoteInputs`). */
  remoteInputs?: RemoteInputsTestSeam;
}

export interface PolymodalServerDeps {
  /**
   * Shared context, left open by cleanup() and not widened by the client's roots; when absent one is
   * built from `env`, follows the client's roots and is closed by cleanup().
   */
  context?: ServerContext;
  env?: NodeJS.ProcessEnv;
  /** Overrides the context's tool deadline (tests). */
  toolDeadlineSeconds?: number;
  /** Only tools annotated read-only (nothing spends credits or changes anything); default POLYMODAL_READ_ONLY. */
  readOnly?: boolean;
  /**
   * Tests only: the socket opener or name lookup through which remote inputs (https URLs given for files) are
   * downloaded, so a test can serve them on loopback. Never set from configuration: by default only public
   * addresses are reachable.
   */
  remoteInputs?: RemoteInputsTestSeam;
  /** Registers the tools on another server (the combined one) instead of a new one; the rest is ignored. */
  mount?: ToolMount;
  /** Where tool calls are counted and timed (default: the process's metrics, served at `/metrics`). */
  metrics?: PolymodalMetrics;
  /** The bin's `tools/list` answer written at build time (`readPrecomputedToolList`), used when it matches. */
  toolList?: () => PrecomputedToolList | undefined;
}

/** Where a server's tools go when it is part of a combined server. */
export interface ToolMount {
  server: McpServer;
  /** The combined server's context, roots and deadline, shared by every server mounted on it. */
  tools: ToolContext;
  /** Tools the combined server registers once itself (`list_jobs`): each mounted server's own is dropped. */
  dropped?: readonly string[];
}

export interface PolymodalServerOptions<T extends ToolContext> {
  name: string;
  title: string;
  version: string;
  /** The server's instructions to the model (how its tools fit together). */
  instructions: string;
  /** The server's icons (serverInfo), also listed on each of its tools, wherever they are mounted. */
  icons?: readonly Icon[];
  deps?: PolymodalServerDeps;
  /** Builds what this server's tools need beyond the common context (default: the common context). */
  toolContext?: (common: ToolContext) => T;
  register: (server: McpServer, tools: T) => void;
}

export function createPolymodalServer<T extends ToolContext = ToolContext>(
  options: PolymodalServerOptions<T>,
): ServerInstance {
  const deps = options.deps ?? {};
  if (deps.mount) return mountTools(options, deps.mount);
  const ownsContext = deps.context === undefined;
  const context = deps.context ?? createServerContext({ env: deps.env, name: options.name });
  const server = new McpServer(
    {
      name: options.name,
      title: options.title,
      version: options.version,
      ...(options.icons ? { icons: [...options.icons] } : {}),
    },
    {
      capabilities: { logging: {} },
      instructions: options.instructions,
      // Ajv only when a client's elicitation answer is checked, not for every server an HTTP request builds.
      jsonSchemaValidator: new LazyJsonSchemaValidator(),
    },
  );
  loadBeforeElicitation(server.server);
  // First of the tools/list wrappers, so that its handler is the outermost: the answer written at build time.
  if (deps.toolList) answerFromPrecomputedToolList(server, deps.toolList);
  // Before registration: the SDK installs its tools/list handler with the first tool.
  cacheToolList(server);
  // After the cache, so the cached answer is the one with icons (SDK 1.x's registerTool has none).
  decorateToolList(server);
  // Before registration too, so every tool (and every tool a combined server mounts) is measured.
  instrumentTools(server, deps.metrics ?? processMetricsSink);
  // And every tool call has the platform client, loaded by the first call rather than at start.
  loadPlatformClientFirst(server, () => context.loadPolymodal());
  const detachLog = context.log.attach(server);
  const roots =
    context.clients === 'remote'
      ? ROOTS_IGNORED
      : ownsContext
        ? syncRoots(server, context.files, { log: context.log })
        : syncSessionRoots(server, context.files, { log: context.log, env: deps.env });
  const common: ToolContext = {
    context,
    roots,
    toolDeadlineSeconds: deps.toolDeadlineSeconds ?? context.toolDeadlineSeconds,
    ...(deps.remoteInputs ? { remoteInputs: deps.remoteInputs } : {}),
  };
  const readOnly = deps.readOnly ?? readReadOnly(deps.env ?? process.env);
  // Saved outputs are resources of the context (the tenant's, over HTTP), and tool results link them so.
  registerOutputResources(server, context.files);
  linkOutputResources(server, context.files, () =>
    registerToolsWhere(server, readOnly ? isReadOnlyTool : () => true, () =>
      registerWithIcons(server, options.icons ?? [], () =>
        options.register(server, options.toolContext ? options.toolContext(common) : (common as T)),
      ),
    ),
  );
  return {
    server,
    async cleanup() {
      detachLog();
      if (ownsContext) await context.close();
    },
  };
}

/** The roots of a remote client: not asked for, so only the configured directories are ever read. */
const ROOTS_IGNORED: RootsSync = {
  ready: () => Promise.resolve(),
  refresh: () => Promise.resolve(),
};

function mountTools<T extends ToolContext>(
  options: PolymodalServerOptions<T>,
  mount: ToolMount,
): ServerInstance {
  const dropped = new Set(mount.dropped ?? []);
  registerToolsWhere(
    mount.server,
    (name) => !dropped.has(name),
    () =>
      registerWithIcons(mount.server, options.icons ?? [], () =>
        options.register(
          mount.server,
          options.toolContext ? options.toolContext(mount.tools) : (mount.tools as T),
        ),
      ),
  );
  // The combined server owns the context, the logging and the connection: nothing to release here.
  return { server: mount.server, cleanup: async () => {} };
}
