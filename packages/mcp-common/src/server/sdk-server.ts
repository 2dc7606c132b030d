/**
 * Where a Polymodal server meets the MCP SDK's server API: the SDK server is created here, every tool is
 * registered here (once, through `registerTool`), and the `tools/list` and `resources/list` answers are built
 * here from the same definitions (`list-tools.ts` builds the former). Nothing else in the project (but the
 * installer's prompts and tasks parts, `install-prompts.ts` and `install-tasks.ts`) registers a tool or a
 * prompt or answers a request, and nothing reads an SDK field that is not public.
 *
 * Prompts (`definePrompt`) are installed with the tools (`install-prompts.ts`), those of the groups whose
 * tools are all offered on the server instance: the SDK answers `prompts/list` and `prompts/get`, the
 * installer answers `completion/complete`. A server that keeps no prompt declares neither capability.
 *
 * Each tool's handler is composed once, in one place, in this order (outermost first):
 * - the SDK's handler context becomes the tool kit's `ToolExtra` (signal, progress, the transport), so tools
 *   never see the SDK's context;
 * - the call runs within its session's roots (`RootsSync.within`, HTTP sessions on loopback);
 * - the call is counted and timed (metrics: the tool's name and how the result reads, never its arguments);
 * - the platform client is loaded by the first call, not when a host starts the server to list its tools;
 * - a question the tool asks the user (`ToolSession.elicit`) is answered as the request's protocol allows
 *   (see "Questions" below);
 * - saved outputs are linked as `polymodal://outputs/<name>` resources (and over HTTP replace file:// links
 *   and server paths, see `addResourceLinks`).
 *
 * The `tools/list` answer is the SDK's `Tool` for each installed definition, built once per server instance:
 * each schema object's JSON Schema is converted once per process (zod's own converter, draft-7, as the lists
 * hosts have cached were made) and trimmed of keywords that allow what is allowed anyway
 * (`withoutVacuousKeywords`); each tool carries its group's icons. A bin's list written at build time
 * (`PrecomputedToolList`) supplies a tool's entry when the tool is described alike, so a freshly started
 * process converts nothing to answer its first `tools/list`.
 *
 * Tasks (the `io.modelcontextprotocol/tasks` extension, 2026-07-28): a tool marked `asTask` answers a request
 * that declares the extension with a task when its job is still running after a short first wait, and the
 * extension's methods are answered from the job ledger (`install-tasks.ts`). Such a tool is registered with
 * the SDK without its output schema (the SDK would refuse a task against it) and its results are checked
 * here instead (`run-tool.ts`).
 *
 * Both protocol generations are served by the same instance. On 2025-11-25 the client's capabilities are
 * those of its `initialize`; on 2026-07-28 every request carries its own
 * (`io.modelcontextprotocol/clientCapabilities`), and they are read from that request, never from an earlier
 * one (`clientCapabilitiesOf`).
 *
 * Views (MCP Apps, the `io.modelcontextprotocol/ui` extension): a tool that declares a `view` is listed with
 * `_meta.ui.resourceUri = ui://polymodal/<view>.html`, and each view is served as that resource (one content
 * item, `text/html;profile=mcp-app`), to a request whose client declared the extension with that mime type
 * (ext-apps' guidance: check `getUiCapability` and offer the app tools then). Every other client gets exactly
 * the answers it got before views existed: the views are not in its `resources/list`, reading one answers
 * "not found", and the tools only views call (`appOnly`, listed with `_meta.ui.visibility: ["app"]`) are
 * neither listed nor callable. The decision is made per request, in the handlers, so that a connection
 * serving many requests (stdio, sessions) and a server built for one request (stateless HTTP) answer alike.
 *
 * A 2025-11-25 request over stateless HTTP carries no capabilities at all. By default (`POLYMODAL_VIEWS=auto`)
 * it is then offered no view, the conservative reading of the guidance; a deployment whose hosts render views
 * and still speak 2025-11-25 sets `POLYMODAL_VIEWS=on`, which offers them where the capabilities are unknown
 * too (a client that did declare its capabilities without the extension still gets none). `off` offers views
 * to no one.
 *
 * Questions: a tool asks the user with `ToolSession.elicit`, written as an ordinary await, and the call is
 * answered with the question as a multi-round-trip result (`call-questions.ts`: on 2026-07-28 the client runs
 * the rounds, on 2025-11-25 stdio and sessions the SDK's legacy shim asks for real). Where nobody can be asked
 * (a client without elicitation, or 2025-11-25 over stateless HTTP, which has no way back to the client)
 * `canElicit()` is false and the tool answers as it would without asking.
 */
import {
  type ClientCapabilities,
  type InputRequiredResult,
  inputRequired,
  isInputRequiredResult,
  McpServer,
  ProtocolError,
  type RegisteredResource,
  type Resource,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import type { FileAccess } from '@polymodal/core';
import type { Logger } from '../logging/create-logger.js';
import type { MetricsSink } from '../metrics/process-metrics-sink.js';
import { toolCallOutcome } from '../metrics/tool-call-outcome.js';
import { registerOutputResources } from '../outputs/output-resources.js';
import type { CallToolResult, ElicitResult, Icon, ToolExtra } from '../protocol/sdk-types.js';
import type { RootsSync } from '../roots/sync-roots.js';
import { declaresTasks, TASK_FIRST_WAIT_SECONDS } from '../tasks/tasks-extension.js';
import type { BoundTool, ToolGroup, ToolSession, ToolSpec, ToolView } from '../tools/define-tool.js';
import type { ToolDeps } from '../tools/tool-deps.js';
import type { ViewsPolicy } from '../views/views-policy.js';
import { askInCall, currentCall, requestCapabilities, withQuestions } from './call-questions.js';
import { installPrompts, type PromptOfGroup } from './install-prompts.js';
import { installTasks, type TaskAnswers } from './install-tasks.js';
import { LazyJsonSchemaValidator, loadJsonSchemaValidator } from './lazy-json-schema-validator.js';
import { type ListedTool, listTools } from './list-tools.js';
import type { PrecomputedToolList } from './precomputed-tool-list.js';
import { checkedOutput, type ToolRunner, toolRunner } from './run-tool.js';
import { standardSchemaOf } from './standard-schema-of.js';

export { McpServer };

export interface SdkServerInfo {
  name: string;
  title: string;
  version: string;
  icons?: readonly Icon[] | undefined;
  /** The server's instructions to the model (how its tools fit together). */
  instructions: string;
}

/** A new SDK server with logging; Ajv is never built for a server that does not need it. */
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
      // The SDK's default builds Ajv with every server, and over HTTP a server is built per request.
      jsonSchemaValidator: new LazyJsonSchemaValidator(),
    },
  );
}

export interface ToolInstallation {
  /** The server's name and version, which a list written at build time must match. */
  server: { name: string; version: string };
  groups: readonly ToolGroup[];
  /** The common dependencies each group builds its own from. */
  common: ToolDeps;
  /** Runs each call within its session's roots, where roots are per session (`RootsSync.within`). */
  within?: RootsSync['within'];
  /** Which tools the model may see (read-only mode, toolsets, one `list_jobs` on a combined server). */
  keep: (spec: ToolSpec) => boolean;
  /** Where tool calls are counted and timed. */
  metrics: Pick<MetricsSink, 'toolCall'>;
  /** The platform client, awaited before each call (loaded by the first). */
  loadPlatformClient: () => Promise<unknown>;
  /** The output directory whose files are resources, and which results link as such. */
  files: FileAccess;
  /** Where what fails outside a tool call (a completion's source) is told; never the caller. */
  log: Pick<Logger, 'warning'>;
  /** The bin's list written at build time, when there is one. */
  toolList?: (() => PrecomputedToolList | undefined) | undefined;
  /** To whom views and app-only tools are offered (`POLYMODAL_VIEWS`; `auto` by default). */
  views?: ViewsPolicy | undefined;
}

/**
 * Registers the kept tools of every group on `server` with the saved outputs and the views as resources, and
 * answers `tools/list` and `resources/list` with them.
 */
export function installTools(server: McpServer, installation: ToolInstallation): void {
  const policy = installation.views ?? 'auto';
  const renders = (ctx: ServerContext) => rendersViews(clientCapabilitiesOf(server, ctx), policy);
  // The answers to this server's questions are checked with an Ajv of its own, built at the first answer.
  const session = sessionOf(server, new LazyJsonSchemaValidator());
  const listed: ListedTool[] = [];
  const prompts: PromptOfGroup[] = [];
  const kept = new Map<string, { tool: BoundTool; run: ToolRunner }>();
  // Known once every tool is registered; a call reads it when it runs.
  let tasks: TaskAnswers | undefined;
  for (const group of installation.groups) {
    const bound = group.bind(installation.common, session);
    prompts.push(...bound.prompts.map((prompt) => ({ prompt, icons: group.icons })));
    for (const tool of bound.tools) {
      if (!installation.keep(tool.spec)) continue;
      // A later group's tool of the same name is a mistake in the server's list, not a second tool.
      if (kept.has(tool.spec.name)) throw new Error(`Tool ${tool.spec.name} is listed twice`);
      const { spec } = tool;
      const run = toolRunner(tool, installation);
      kept.set(spec.name, { tool, run });
      const description =
        typeof spec.description === 'string'
          ? spec.description
          : spec.description(installation.common.toolDeadlineSeconds);
      server.registerTool(
        spec.name,
        {
          title: spec.title,
          description,
          inputSchema: standardSchemaOf(spec.inputSchema),
          // A task is no tool result: the SDK would refuse it against the schema, so the tool's results are
          // checked by the installer instead (`checkedOutput`), and `tools/list` still shows the schema.
          ...(spec.outputSchema && !spec.asTask ? { outputSchema: standardSchemaOf(spec.outputSchema) } : {}),
          annotations: spec.annotations,
          ...(spec._meta ? { _meta: spec._meta } : {}),
        },
        composeHandler(tool, installation, {
          run,
          offered: spec.appOnly ? renders : undefined,
          tasks: () => tasks,
        }),
      );
      listed.push({ spec, description, icons: group.icons });
    }
  }
  tasks = installTasks(server, {
    tools: new Map([...kept].map(([name, { tool }]) => [name, tool])),
    run: async (tool, args, ctx) => {
      const answered = await (kept.get(tool.spec.name) as { run: ToolRunner }).run(args, toolExtraOf(ctx));
      // A job's read asks nothing; were it to, the task could not say it.
      return isInputRequiredResult(answered) ? { content: [], isError: true } : answered;
    },
    platform: () => installation.common.platform,
  });
  // Saved outputs are resources of the context (the tenant's, over HTTP), and tool results link them so.
  const outputs = registerOutputResources(server, installation.files);
  // A prompt calls tools the model sees: app-only ones are not among them.
  installPrompts(server, {
    prompts,
    offered: new Set(listed.filter(({ spec }) => !spec.appOnly).map(({ spec }) => spec.name)),
    files: installation.files,
    log: installation.log,
  });
  if (listed.length === 0) return;
  const views = policy === 'off' ? [] : viewsOf(listed);
  const viewResources = views.map((view) => registerView(server, view, renders));
  const hasAppOnly = listed.some(({ spec }) => spec.appOnly);

  // Replaces the answer the SDK installed with the first resource: the views only for a client that renders
  // them, then the outputs (in the SDK's order: fixed resources, then what templates list).
  server.server.setRequestHandler('resources/list', async (_request, ctx) => ({
    resources: [
      ...(viewResources.length > 0 && renders(ctx) ? viewResources : []),
      ...(await outputs.list()),
    ],
  }));
  // Replaces the answer the SDK installed with the first tool: the same tools, built once, with icons.
  let all: Tool[] | undefined;
  let answer: { tools: Tool[] } | undefined;
  let answerWithViews: { tools: Tool[] } | undefined;
  server.server.setRequestHandler('tools/list', (_request, ctx) => {
    all ??= listTools(listed, installation.server, installation.toolList?.());
    if ((viewResources.length > 0 || hasAppOnly) && renders(ctx)) {
      answerWithViews ??= { tools: withViews(all, listed) };
      return answerWithViews;
    }
    answer ??= { tools: hasAppOnly ? all.filter((_, index) => !listed[index]?.spec.appOnly) : all };
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
 * The capabilities of the client that sent this request: on 2026-07-28 those the request carries, on
 * 2025-11-25 those of the connection's `initialize`; undefined where neither exists (2025-11-25 over
 * stateless HTTP).
 */
export function clientCapabilitiesOf(server: McpServer, ctx: ServerContext): ClientCapabilities | undefined {
  return requestCapabilities(ctx) ?? server.server.getClientCapabilities();
}

/**
 * Whether a client with these capabilities is offered views: it declared that it renders HTML views, or,
 * under `on`, its capabilities are unknown.
 */
function rendersViews(capabilities: ClientCapabilities | undefined, policy: ViewsPolicy): boolean {
  if (policy === 'off') return false;
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

/**
 * Serves a view as its `ui://` resource (one content item, the extension's mime type, its CSP declared) to
 * a request that renders views; to any other it does not exist. Returns its `resources/list` entry.
 */
function registerView(server: McpServer, view: ToolView, renders: (ctx: ServerContext) => boolean): Resource {
  const uri = viewUri(view);
  const metadata = { title: view.title, description: view.description, mimeType: VIEW_MIME_TYPE };
  const registered: RegisteredResource = server.registerResource(
    `view-${view.name}`,
    uri,
    metadata,
    async (_uri, ctx) => {
      if (!renders(ctx)) throw notFound(uri);
      return {
        contents: [
          {
            uri,
            mimeType: VIEW_MIME_TYPE,
            text: await view.html(),
            ...(view.csp ? { _meta: { ui: { csp: view.csp } } } : {}),
          },
        ],
      };
    },
  );
  return { uri, name: registered.name, ...metadata };
}

/** The MCP's "resource not found" (-32002), as the SDK answers for a URI it does not know. */
function notFound(uri: string): ProtocolError {
  return new ProtocolError(-32002, `Resource ${uri} not found`, { uri });
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

/** The tool kit's view of one call, from the SDK's handler context. */
function toolExtraOf(ctx: ServerContext): ToolExtra {
  return {
    signal: ctx.mcpReq.signal,
    _meta: ctx.mcpReq._meta,
    sendNotification: (notification) => ctx.mcpReq.notify(notification),
    // Over HTTP the SDK gives each request its HTTP facts; over stdio and in-process it gives none.
    overHttp: ctx.http !== undefined,
  };
}

/**
 * The one wrapper around every tool's handler (see the file's comment for the order). `offered`, for a tool
 * only views call, says whether this request's client renders views; to any other it does not exist. A tool
 * that follows a paid job answers a request that declared the Tasks extension with a task when its job is
 * still running after a short first wait (`install-tasks.ts`).
 */
function composeHandler(
  tool: BoundTool,
  installation: ToolInstallation,
  options: {
    run: ToolRunner;
    offered: ((ctx: ServerContext) => boolean) | undefined;
    tasks: () => TaskAnswers | undefined;
  },
) {
  const { spec } = tool;
  const { within } = installation;
  const call = async (args: Record<string, unknown>, extra: ToolExtra, ctx: ServerContext) => {
    const started = performance.now();
    let outcome: ReturnType<typeof toolCallOutcome> = 'error';
    try {
      const tasks = spec.asTask && declaresTasks(ctx) ? options.tasks() : undefined;
      const answered = await options.run(tasks ? withFirstWait(args) : args, extra, (run) =>
        withQuestions(ctx, run),
      );
      if (isInputRequiredResult(answered)) {
        outcome = 'ok';
        return answered;
      }
      const checked = spec.asTask ? checkedOutput(spec, answered) : answered;
      outcome = toolCallOutcome(checked);
      return tasks ? await tasks.answerAsTask(ctx, checked) : checked;
    } finally {
      installation.metrics.toolCall(spec.name, outcome, (performance.now() - started) / 1000);
    }
  };
  return (
    args: Record<string, unknown>,
    ctx: ServerContext,
  ): Promise<CallToolResult | InputRequiredResult> => {
    // To a client that does not render views the tool does not exist (the SDK answers the throw as an
    // error result).
    if (options.offered && !options.offered(ctx))
      throw new ProtocolError(-32602, `Tool ${spec.name} not found`);
    const extra = toolExtraOf(ctx);
    return within
      ? within({ listRoots: (listOptions) => ctx.mcpReq.send({ method: 'roots/list' }, listOptions) }, () =>
          call(args, extra, ctx),
        )
      : call(args, extra, ctx);
  };
}

/** A call that may become a task waits for its job only briefly: the host follows the rest in the background. */
function withFirstWait(args: Record<string, unknown>): Record<string, unknown> {
  return typeof args.waitSeconds === 'number' && args.waitSeconds > TASK_FIRST_WAIT_SECONDS
    ? { ...args, waitSeconds: TASK_FIRST_WAIT_SECONDS }
    : args;
}

/**
 * Questions for the tools of one server instance, asked within the call under way (`askInCall`). An accepted
 * answer is checked against the schema the question asked for (the SDK does not check it), with the server's
 * own validator: Ajv, loaded and built on this first need.
 */
function sessionOf(server: McpServer, validator: LazyJsonSchemaValidator): ToolSession {
  return {
    canElicit() {
      const ctx = currentCall();
      return ctx !== undefined && canAsk(server, ctx);
    },
    async elicit(request) {
      const ctx = currentCall();
      if (!ctx || !canAsk(server, ctx)) {
        throw new Error('This client cannot be asked: check canElicit() before elicit().');
      }
      await loadJsonSchemaValidator();
      const answer = await askInCall(QUESTION_KEY, inputRequired.elicit(request));
      if (!isElicitResult(answer)) throw new Error('The client answered the question with something else.');
      if (answer.action === 'accept') {
        const checked = validator.getValidator(request.requestedSchema)(answer.content ?? {});
        if (!checked.valid) {
          throw new Error(`The answer does not match requested schema: ${checked.errorMessage}`);
        }
      }
      return answer;
    },
  };
}

/** What a tool's question is named within its call. */
const QUESTION_KEY = 'question';

/**
 * Whether this request's client can be asked: it declared elicitation, and the call has a way back to it
 * (not 2025-11-25 over stateless HTTP, whose requests carry no capabilities).
 */
function canAsk(server: McpServer, ctx: ServerContext): boolean {
  return clientCapabilitiesOf(server, ctx)?.elicitation !== undefined;
}

function isElicitResult(value: unknown): value is ElicitResult {
  const action = (value as { action?: unknown } | undefined)?.action;
  return action === 'accept' || action === 'decline' || action === 'cancel';
}
