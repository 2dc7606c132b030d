/**
 * One Polymodal MCP server: the SDK server with logging and instructions, the context built from the
 * environment (or shared), roots kept in sync with the file access, and the server's tool groups installed.
 * Each server's `server.ts` is one call of this with its tool group, and the combined server one call with
 * every group, so what every server does alike lives here once. The SDK itself is met in `sdk-server.ts`.
 *
 * A shared context (the HTTP runner's per-tenant one) serves many clients at once, so a client's roots are
 * never applied to its file access (they would widen what every other client of the tenant may read): they
 * apply to that client's own tool calls only, asked for within a call (see `syncSessionRoots`).
 *
 * Roots name directories on the client's machine. They are honoured only where that machine is this one
 * (stdio, or HTTP on loopback without authentication); for an authenticated (remote) client they are
 * never asked for and never widen what the server reads (see `ContextCallers`).
 */
import { createPlatformContext, type PlatformContext } from '../context/create-platform-context.js';
import type { PolymodalMetrics } from '../metrics/create-metrics.js';
import { processMetricsSink } from '../metrics/process-metrics-sink.js';
import type { Icon } from '../protocol/sdk-types.js';
import { type RootsSync, syncRoots } from '../roots/sync-roots.js';
import { syncSessionRoots } from '../roots/sync-session-roots.js';
import type { ServerInstance } from '../runners/server-instance.js';
import type { ToolGroup, ToolSpec } from '../tools/define-tool.js';
import type { RemoteInputsTestSeam, ToolDeps } from '../tools/tool-deps.js';
import { readViewsPolicy } from '../views/views-policy.js';
import type { PrecomputedToolList } from './precomputed-tool-list.js';
import { createSdkServer, installTools } from './sdk-server.js';

export type { ToolDeps };

export interface PolymodalServerDeps {
  /**
   * Shared context, left open by cleanup() and not widened by the client's roots; when absent one is
   * built from `env`, follows the client's roots and is closed by cleanup().
   */
  platform?: PlatformContext;
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
  /** Where tool calls are counted and timed (default: the process's metrics, served at `/metrics`). */
  metrics?: PolymodalMetrics;
  /** The bin's `tools/list` answer written at build time (`readPrecomputedToolList`), used where it matches. */
  toolList?: () => PrecomputedToolList | undefined;
}

export interface PolymodalServerOptions {
  name: string;
  title: string;
  version: string;
  /** The server's instructions to the model (how its tools fit together). */
  instructions: string;
  /** The server's icons (serverInfo); each tool is listed with its own group's. */
  icons?: readonly Icon[];
  deps?: PolymodalServerDeps;
  /** The server's tools: one group per service server, several on the combined server. */
  groups: readonly ToolGroup[];
}

export function createPolymodalServer(options: PolymodalServerOptions): ServerInstance {
  const deps = options.deps ?? {};
  const ownsContext = deps.platform === undefined;
  const context = deps.platform ?? createPlatformContext({ env: deps.env, name: options.name });
  const server = createSdkServer(options);
  const detachLog = context.log.attach(server);
  const roots =
    context.callers === 'remote'
      ? ROOTS_IGNORED
      : ownsContext
        ? syncRoots(server, context.files, { log: context.log })
        : syncSessionRoots(server, context.files, { log: context.log, env: deps.env });
  const common: ToolDeps = {
    platform: context,
    roots,
    toolDeadlineSeconds: deps.toolDeadlineSeconds ?? context.toolDeadlineSeconds,
    ...(deps.remoteInputs ? { remoteInputs: deps.remoteInputs } : {}),
  };
  const readOnly = deps.readOnly ?? readReadOnly(deps.env ?? process.env);
  installTools(server, {
    server: { name: options.name, version: options.version },
    groups: options.groups,
    common,
    ...(roots.within ? { within: roots.within } : {}),
    keep: readOnly ? isReadOnlyTool : () => true,
    metrics: deps.metrics ?? processMetricsSink,
    loadPlatformClient: () => context.loadClient(),
    files: context.files,
    log: context.log,
    toolList: deps.toolList,
    views: readViewsPolicy(deps.env ?? process.env),
  });
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

/** Tools that neither spend credits nor change anything, as their annotations declare. */
export const isReadOnlyTool = (spec: ToolSpec): boolean => spec.annotations.readOnlyHint === true;

export const READ_ONLY_VARIABLE = 'POLYMODAL_READ_ONLY';

/** `POLYMODAL_READ_ONLY=1` (or `true`, `yes`) turns the read-only mode on. */
export function readReadOnly(env: NodeJS.ProcessEnv): boolean {
  return ['1', 'true', 'yes'].includes(env[READ_ONLY_VARIABLE]?.trim().toLowerCase() ?? '');
}
