/**
 * Where a Polymodal server meets the MCP SDK's server API: the SDK server is created here, every tool is
 * registered here (once, through `registerTool`), and the `tools/list` answer is built here from the same
 * tool definitions. Nothing else in the project registers a tool or replaces a request handler, and nothing
 * reads an SDK field that is not public; `docs/sdk-v2.md` names this file as the one the move to SDK 2.x
 * rewrites.
 *
 * Each tool's handler is composed once, in one place, in this order (outermost first):
 * - the call runs within its session's roots (`RootsSync.within`, HTTP sessions on loopback);
 * - the call is counted and timed (metrics: the tool's name and how the result reads, never its arguments);
 * - the platform client is loaded by the first call, not when a host starts the server to list its tools;
 * - saved outputs are linked as `polymodal://outputs/<name>` resources (and over HTTP replace file:// links
 *   and server paths, see `addResourceLinks`).
 *
 * The `tools/list` answer is the SDK's `Tool` for each installed definition, built once per server instance:
 * each schema object's JSON Schema is converted once per process (with zod's own converter, the options the
 * SDK 1.x uses) and trimmed of keywords that allow what is allowed anyway (`withoutVacuousKeywords`); each
 * tool carries its group's icons (SDK 1.x's `registerTool` takes none). A bin's list written at build time
 * (`PrecomputedToolList`) supplies a tool's entry when the tool is described alike, so a freshly started
 * process converts nothing to answer its first `tools/list`.
 *
 * Views (MCP Apps, the `io.modelcontextprotocol/ui` extension): a tool that declares a `view` is listed with
 * `_meta.ui.resourceUri = ui://polymodal/<view>.html`, and each view is served once per server as that
 * resource (one content item, `text/html;profile=mcp-app`), only to a client that declared the extension
 * with that mime type in its `initialize` (ext-apps' guidance: check `getUiCapability` and offer the app
 * tools then). Every other client gets exactly the answers it got before views existed. Tools only views call
 * (`appOnly`) are listed with `_meta.ui.visibility: ["app"]` and are registered disabled like the views'
 * resources: listed and callable only once the client has said it renders views.
 *
 * A server that never saw `initialize` (stateless Streamable HTTP builds one per request) does not know the
 * client's capabilities. By default (`POLYMODAL_VIEWS=auto`) it then offers no view, the conservative
 * reading of the guidance; a deployment whose hosts render views sets `POLYMODAL_VIEWS=on`, which offers them
 * where the capabilities are unknown too (a client that did declare its capabilities without the extension
 * still gets none). `off` offers views to no one.
 */
import {
  McpServer,
  type RegisteredResource,
  type RegisteredTool,
} from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { FileAccess } from '@polymodal/core';
import { toJSONSchema, type z } from 'zod';
import type { MetricsSink } from '../metrics/process-metrics-sink.js';
import { toolCallOutcome } from '../metrics/tool-call-outcome.js';
import { addResourceLinks } from '../outputs/link-output-resources.js';
import type { Icon } from '../protocol/sdk-types.js';
import type { RootsSync } from '../roots/sync-roots.js';
import type {
  BoundTool,
  ToolGroup,
  ToolHandler,
  ToolSession,
  ToolSpec,
  ToolView,
} from '../tools/define-tool.js';
import type { ToolContext } from '../tools/tool-context.js';
import type { ViewsPolicy } from '../views/views-policy.js';
import { LazyJsonSchemaValidator, loadJsonSchemaValidator } from './lazy-json-schema-validator.js';
import type { PrecomputedToolList } from './precomputed-tool-list.js';
import { withoutVacuousKeywords } from './tool-list-json.js';

export { McpServer };

export interface SdkServerInfo {
  name: string;
  title: string;
  version: string;
  icons?: readonly Icon[] | undefined;
  /** The server's instructions to the model (how its tools fit together). */
  instructions: string;
}

/** A new SDK server with logging; Ajv is loaded only when an elicitation answer is to be checked. */
export function createSdkServer(info: SdkServerInfo): McpServer {
  return new McpServer(
    {
      name: info.name,
      title: info.title,
      version: info.version,
      ...(info.icons ? { icons: [...info.icons] } : {}),
    },
    {
      capabilities: { logging: {} },
      instructions: info.instructions,
      // Ajv only when a client's elicitation answer is checked, not for every server an HTTP request builds.
      jsonSchemaValidator: new LazyJsonSchemaValidator(),
    },
  );
}

export interface ToolInstallation {
  /** The server's name and version, which a list written at build time must match. */
  server: { name: string; version: string };
  groups: readonly ToolGroup[];
  /** The common dependencies each group builds its own from. */
  common: ToolContext;
  /** Runs each call within its session's roots, where roots are per session (`RootsSync.within`). */
  within?: RootsSync['within'];
  /** Which tools the model may see (read-only mode, toolsets, one `list_jobs` on a combined server). */
  keep: (spec: ToolSpec) => boolean;
  /** Where tool calls are counted and timed. */
  metrics: Pick<MetricsSink, 'toolCall'>;
  /** The platform client, awaited before each call (loaded by the first). */
  loadPlatformClient: () => Promise<unknown>;
  /** The output directory whose files results link as resources. */
  files: FileAccess;
  /** The bin's list written at build time, when there is one. */
  toolList?: (() => PrecomputedToolList | undefined) | undefined;
  /** To whom views and app-only tools are offered (`POLYMODAL_VIEWS`; `auto` by default). */
  views?: ViewsPolicy | undefined;
}

/** Registers the kept tools of every group on `server`, and answers `tools/list` with them. */
export function installTools(server: McpServer, installation: ToolInstallation): void {
  const session = sessionOf(server);
  const listed: ListedTool[] = [];
  const appOnly: RegisteredTool[] = [];
  const names = new Set<string>();
  for (const group of installation.groups) {
    for (const tool of group.bind(installation.common, session)) {
      if (!installation.keep(tool.spec)) continue;
      // A later group's tool of the same name is a mistake in the server's list, not a second tool.
      if (names.has(tool.spec.name)) throw new Error(`Tool ${tool.spec.name} is listed twice`);
      names.add(tool.spec.name);
      const { spec } = tool;
      const description =
        typeof spec.description === 'string'
          ? spec.description
          : spec.description(installation.common.toolDeadlineSeconds);
      const registered = server.registerTool(
        spec.name,
        {
          title: spec.title,
          description,
          inputSchema: spec.inputSchema,
          ...(spec.outputSchema ? { outputSchema: spec.outputSchema } : {}),
          annotations: spec.annotations,
          ...(spec._meta ? { _meta: spec._meta } : {}),
        },
        composeHandler(tool, installation),
      );
      if (spec.appOnly) appOnly.push(registered);
      listed.push({ spec, description, icons: group.icons });
    }
  }
  if (listed.length === 0) return;
  const policy = installation.views ?? 'auto';
  const views = policy === 'off' ? [] : viewsOf(listed);
  // Registered now (resources can be declared only before connecting), offered once the client has said it
  // renders views: a disabled resource is neither listed nor read, a disabled tool not called.
  const offered = [...views.map((view) => registerView(server, view)), ...appOnly];
  for (const item of offered) {
    // `on`: offered until a client's capabilities say otherwise (a stateless request never says).
    if (policy !== 'on') item.disable();
  }
  if (offered.length > 0 && policy !== 'off') {
    const previous = server.server.oninitialized;
    server.server.oninitialized = () => {
      previous?.();
      const renders = rendersViews(server, policy);
      for (const item of offered) if (item.enabled !== renders) item.update({ enabled: renders });
    };
  }
  // Replaces the answer the SDK installed with the first tool: the same tools, built once, with icons.
  let all: Tool[] | undefined;
  let answer: { tools: Tool[] } | undefined;
  let answerWithViews: { tools: Tool[] } | undefined;
  server.server.setRequestHandler(ListToolsRequestSchema, () => {
    all ??= listTools(listed, installation.server, installation.toolList?.());
    if (offered.length > 0 && rendersViews(server, policy)) {
      answerWithViews ??= { tools: withViews(all, listed) };
      return answerWithViews;
    }
    answer ??= { tools: appOnly.length > 0 ? all.filter((_, index) => !listed[index]?.spec.appOnly) : all };
    return answer;
  });
}

/** The extension a host declares when it renders views, and the mime type of a view it renders. */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
export const VIEW_MIME_TYPE = 'text/html;profile=mcp-app';

/** A view's resource URI. */
export function viewUri(view: Pick<ToolView, 'name'>): string {
  return `ui://polymodal/${view.name}.html`;
}

/**
 * Whether this server offers views to its client: the client declared (in its `initialize`) that it renders
 * HTML views, or, under `on`, this server never saw the client's capabilities (stateless HTTP).
 */
function rendersViews(server: McpServer, policy: ViewsPolicy): boolean {
  if (policy === 'off') return false;
  const capabilities = server.server.getClientCapabilities();
  if (capabilities === undefined) return policy === 'on';
  // ext-apps' `getUiCapability`: the extension's entry under the client's `extensions`.
  const ui = capabilities.extensions?.[UI_EXTENSION] as { mimeTypes?: unknown } | undefined;
  return Array.isArray(ui?.mimeTypes) && ui.mimeTypes.includes(VIEW_MIME_TYPE);
}

/** The views of the listed tools, each once (several tools may share one). */
function viewsOf(listed: readonly ListedTool[]): ToolView[] {
  const views = new Map<string, ToolView>();
  for (const { spec } of listed) {
    if (!spec.view) continue;
    const known = views.get(spec.view.name);
    if (known && known !== spec.view) throw new Error(`Two views are named ${spec.view.name}`);
    views.set(spec.view.name, spec.view);
  }
  return [...views.values()];
}

/** Serves a view as its `ui://` resource: one content item, the extension's mime type, its CSP declared. */
function registerView(server: McpServer, view: ToolView): RegisteredResource {
  const uri = viewUri(view);
  const resource = server.registerResource(
    `view-${view.name}`,
    uri,
    { title: view.title, description: view.description, mimeType: VIEW_MIME_TYPE },
    async () => ({
      contents: [
        {
          uri,
          mimeType: VIEW_MIME_TYPE,
          text: await view.html(),
          ...(view.csp ? { _meta: { ui: { csp: view.csp } } } : {}),
        },
      ],
    }),
  );
  return resource;
}

/**
 * The listed tools as a client that renders views sees them: a tool with a view names it in `_meta.ui`, an
 * app-only tool says so there (the only differences views make to the list).
 */
function withViews(tools: readonly Tool[], listed: readonly ListedTool[]): Tool[] {
  return tools.map((tool, index) => {
    const spec = listed[index]?.spec;
    if (!spec?.view && !spec?.appOnly) return tool;
    const ui = {
      ...(spec.view ? { resourceUri: viewUri(spec.view) } : {}),
      ...(spec.appOnly ? { visibility: ['app'] } : {}),
    };
    return { ...tool, _meta: { ...tool._meta, ui } };
  });
}

/** The one wrapper around every tool's handler (see the file's comment for the order). */
function composeHandler(tool: BoundTool, installation: ToolInstallation) {
  const { name } = tool.spec;
  const { within } = installation;
  let handler: ToolHandler | undefined;
  const call: ToolHandler = async (args, extra) => {
    const started = performance.now();
    let outcome: ReturnType<typeof toolCallOutcome> = 'error';
    try {
      await installation.loadPlatformClient();
      handler ??= tool.handler();
      const result = await handler(args, extra);
      // Over HTTP the SDK gives each request its HTTP facts; over stdio and in-process it gives none.
      const linked = addResourceLinks(result, installation.files, extra.requestInfo !== undefined);
      outcome = toolCallOutcome(linked);
      return linked;
    } finally {
      installation.metrics.toolCall(name, outcome, (performance.now() - started) / 1000);
    }
  };
  return (args: Record<string, unknown>, extra: Parameters<ToolHandler>[1]) =>
    within ? within(extra, () => call(args, extra)) : call(args, extra);
}

/** Elicitation for the tools of one server instance, through the SDK server's public methods. */
function sessionOf(server: McpServer): ToolSession {
  return {
    canElicit: () => server.server.getClientCapabilities()?.elicitation !== undefined,
    async elicit(request, options) {
      // The answer is checked against the requested schema with Ajv, which is loaded on this first need.
      await loadJsonSchemaValidator();
      return server.server.elicitInput(request, { signal: options.signal });
    },
  };
}

interface ListedTool {
  spec: ToolSpec;
  description: string;
  icons: readonly Icon[];
}

/** Each schema object's JSON Schema, per direction, converted once per process. */
const converted = { input: new WeakMap<z.ZodObject, Tool['inputSchema']>(), output: new WeakMap() };

function jsonSchemaOf(schema: z.ZodObject, io: 'input' | 'output'): Tool['inputSchema'] {
  const cache = converted[io] as WeakMap<z.ZodObject, Tool['inputSchema']>;
  let json = cache.get(schema);
  if (json === undefined) {
    // What SDK 1.x's McpServer sends for a zod 4 object (draft-7, the input or output side of pipes),
    // without the keywords that say nothing.
    json = withoutVacuousKeywords(toJSONSchema(schema, { target: 'draft-7', io })) as Tool['inputSchema'];
    cache.set(schema, json);
  }
  return json;
}

function listTools(
  listed: readonly ListedTool[],
  server: { name: string; version: string },
  written: PrecomputedToolList | undefined,
): Tool[] {
  const fromFile =
    written && server.name === written.server.name && server.version === written.server.version
      ? new Map(written.tools.map((entry) => [entry.name as string, entry]))
      : undefined;
  return listed.map(({ spec, description, icons }): Tool => {
    const entry = fromFile?.get(spec.name);
    if (entry && describedAlike(spec, description, icons, entry)) return entry as Tool;
    return {
      name: spec.name,
      title: spec.title,
      description,
      inputSchema: jsonSchemaOf(spec.inputSchema, 'input'),
      annotations: spec.annotations,
      ...(spec._meta ? { _meta: spec._meta } : {}),
      ...(spec.outputSchema ? { outputSchema: jsonSchemaOf(spec.outputSchema, 'output') } : {}),
      ...(icons.length > 0 ? { icons: [...icons] } : {}),
    };
  });
}

/** Whether the file's entry describes the tool as it is now (its schemas come from the same code). */
function describedAlike(
  spec: ToolSpec,
  description: string,
  icons: readonly Icon[],
  entry: Record<string, unknown>,
): boolean {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  return (
    same(spec.title, entry.title) &&
    same(description, entry.description) &&
    same(spec.annotations, entry.annotations) &&
    same(spec._meta, entry._meta) &&
    same(icons.length > 0 ? icons : undefined, entry.icons) &&
    entry.execution === undefined
  );
}
