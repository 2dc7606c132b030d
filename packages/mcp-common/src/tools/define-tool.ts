/**
 * Tools as data. A tool file exports one definition — its name, what `tools/list` shows of it, and a handler
 * built from the server's dependencies — and a server is a list of such definitions (a `ToolGroup`). Nothing
 * in a tool file talks to the MCP SDK: the installer (`server/sdk-server.ts`) registers each definition once,
 * wraps its handler once (platform client, metrics, output links, roots) and builds the `tools/list` answer
 * from the same list. The combined server concatenates the servers' groups.
 *
 * A group may also hold prompts (`prompts/define-prompt.ts`): workflows a person picks by name, each
 * naming the tools it calls, offered wherever those tools are.
 *
 * Definitions are built once per process, at module level: over Streamable HTTP every request builds a new
 * server from the same objects, and the JSON Schema of each schema object is converted once per process.
 */
import { z } from 'zod';
import type { BoundPrompt, Prompt, PromptSpec } from '../prompts/define-prompt.js';
import type {
  CallToolResult,
  ElicitRequestFormParams,
  ElicitResult,
  Icon,
  ToolAnnotations,
  ToolExtra,
} from '../protocol/sdk-types.js';
import type { ToolDeps } from './tool-deps.js';

/**
 * What a tool may ask of the session it answers in, besides its request's own `extra`. A question is served
 * as a multi-round-trip result: the call is answered with the question, and once the user has answered, the
 * tool runs again from its start and `elicit` returns the answer (see `server/call-questions.ts`). So a tool
 * asks before it does anything that costs or changes anything.
 */
export interface ToolSession {
  /** Whether the client of the call under way can be asked (it declared elicitation, and can be reached). */
  canElicit(): boolean;
  /** Asks the user through the client (`elicitation/create`, form mode); the answer is checked against the schema. */
  elicit(request: ElicitRequestFormParams, options: { signal: AbortSignal }): Promise<ElicitResult>;
}

/** One call of a tool: its arguments (already checked against its input schema) and the request's context. */
export type ToolHandler<A = Record<string, unknown>> = (args: A, extra: ToolExtra) => Promise<CallToolResult>;

/** What `tools/list` shows of a tool, and how the server checks its calls. */
export interface ToolSpec {
  readonly name: string;
  readonly title: string;
  /** The description, or how it reads for the server's tool deadline (a tool that says how long it may take). */
  readonly description: string | ((toolDeadlineSeconds: number) => string);
  /** Checked by the server before the handler runs; shown as the tool's input JSON Schema. */
  readonly inputSchema: z.ZodObject;
  /** Checked against every result's `structuredContent`; shown as the tool's output JSON Schema. */
  readonly outputSchema?: z.ZodObject | undefined;
  readonly annotations: ToolAnnotations;
  readonly _meta?: Record<string, unknown> | undefined;
  /** The MCP Apps view a host that renders views shows this tool's results in (`ToolView`). */
  readonly view?: ToolView | undefined;
  /**
   * A helper only views call (a transcript page, an export): listed with `_meta.ui.visibility: ["app"]`,
   * which hosts keep from the model, and offered (listed and callable) only to clients that render views.
   */
  readonly appOnly?: boolean | undefined;
  /**
   * The tool starts or continues a paid job and answers with its handle (`respondWithJob`): to a request that
   * declares the Tasks extension (2026-07-28) a job still running after a short first wait is answered as a
   * task, which the host then follows itself (`server/install-tasks.ts`).
   */
  readonly asTask?: boolean | undefined;
}

/**
 * An MCP Apps view (the `io.modelcontextprotocol/ui` extension): one self-contained HTML file that a host
 * renders in a sandboxed iframe and feeds with a tool's input and result. Several tools may share one view.
 * The installer serves it as `ui://polymodal/<name>.html` and names it in each tool's `_meta.ui`, for
 * clients that declare the extension only (`sdk-server.ts`).
 */
export interface ToolView {
  /** kebab-case: the resource is `ui://polymodal/<name>.html`. */
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** The view's HTML (read when a client first reads the resource, not when the server starts). */
  html(): Promise<string>;
  /** Origins the view may load media from or connect to (`_meta.ui.csp` of the resource); none by default. */
  readonly csp?: {
    readonly resourceDomains?: readonly string[];
    readonly connectDomains?: readonly string[];
  };
}

/** A tool: its spec and the handler it gets for a server's dependencies `D`. */
export interface Tool<D> extends ToolSpec {
  /** Called once per server instance (over HTTP: per request or session) with that server's dependencies. */
  readonly handler: (deps: D, session: ToolSession) => ToolHandler;
}

/** A tool as its file writes it: the input schema as a field map, the handler typed by it. */
export interface ToolSource<D, S extends z.ZodRawShape> {
  name: string;
  title: string;
  description: ToolSpec['description'];
  inputSchema: S;
  /** A zod object, or a field map made one here. */
  outputSchema?: z.ZodObject | z.ZodRawShape | undefined;
  /** The title is repeated here by the installer, so the annotations need not name it. */
  annotations: ToolAnnotations;
  _meta?: Record<string, unknown> | undefined;
  /** The view hosts that render MCP Apps show the tool's results in. */
  view?: ToolView | undefined;
  /** A helper only views call (`ToolSpec.appOnly`). */
  appOnly?: boolean | undefined;
  /** Starts or continues a paid job: answered as a task where the host runs tasks (`ToolSpec.asTask`). */
  asTask?: boolean | undefined;
  handler: (deps: D, session: ToolSession) => ToolHandler<z.output<z.ZodObject<S>>>;
}

/**
 * A tool definition from its source. The input field map becomes one zod object here, once per process, the
 * same object the server checks calls against and converts for `tools/list`.
 */
export function defineTool<D, S extends z.ZodRawShape>(source: ToolSource<D, S>): Tool<D> {
  const { inputSchema, outputSchema, handler, annotations, ...spec } = source;
  return {
    ...spec,
    annotations: { title: source.title, ...annotations },
    inputSchema: objectOf(inputSchema),
    ...(outputSchema === undefined
      ? {}
      : { outputSchema: outputSchema instanceof z.ZodObject ? outputSchema : objectOf(outputSchema) }),
    // The server checks the arguments against `inputSchema` before the handler sees them, so they have the
    // shape the handler's type names; the list of definitions cannot carry each tool's own argument type.
    handler: handler as Tool<D>['handler'],
  };
}

// A field map's zod object, once per process: a tool defined per server (the combined server's `list_jobs`)
// from module-level field maps then has the same schema objects, converted to JSON Schema once.
const objects = new WeakMap<z.ZodRawShape, z.ZodObject>();

function objectOf(shape: z.ZodRawShape): z.ZodObject {
  let object = objects.get(shape);
  if (object === undefined) {
    object = z.object(shape);
    objects.set(shape, object);
  }
  return object;
}

/** A tool of a group, bound to one server instance: its spec, and its handler built on first use. */
export interface BoundTool {
  readonly spec: ToolSpec;
  handler(): ToolHandler;
}

/** The tools of one server with what they need: the unit a server is made of, and a combined server concatenates. */
export interface ToolGroup {
  /** Listed on each of the group's tools and prompts, wherever the group is installed. */
  readonly icons: readonly Icon[];
  readonly tools: readonly ToolSpec[];
  /** The group's prompts, each offered where every tool it uses is. */
  readonly prompts: readonly PromptSpec[];
  /**
   * The group's tools and prompts on one server instance, in order, with the dependencies built from the
   * common ones.
   */
  bind(common: ToolDeps, session: ToolSession): BoundGroup;
}

/** A group bound to one server instance. */
export interface BoundGroup {
  readonly tools: readonly BoundTool[];
  readonly prompts: readonly BoundPrompt[];
}

/**
 * A group of tools (and prompts) sharing one set of dependencies: the common ones (`ToolDeps`), or what
 * `deps` builds from them once per server instance.
 */
export function toolGroup(options: {
  icons?: readonly Icon[];
  tools: readonly Tool<ToolDeps>[];
  prompts?: readonly Prompt<ToolDeps>[];
}): ToolGroup;
export function toolGroup<D>(options: {
  icons?: readonly Icon[];
  tools: readonly Tool<D>[];
  prompts?: readonly Prompt<D>[];
  /** The group's dependencies on one server instance, built from the common ones on first use. */
  deps: (common: ToolDeps) => D;
}): ToolGroup;
export function toolGroup<D>(options: {
  icons?: readonly Icon[];
  tools: readonly Tool<D>[];
  prompts?: readonly Prompt<D>[];
  deps?: (common: ToolDeps) => D;
}): ToolGroup {
  const { tools } = options;
  const prompts = options.prompts ?? [];
  const depsOf = options.deps ?? ((common: ToolDeps) => common as D);
  return {
    icons: options.icons ?? [],
    tools,
    prompts,
    bind(common, session) {
      // Built once per server instance, and only when one of the group's tools or prompts is used on it.
      let deps: { value: D } | undefined;
      const depsHere = () => {
        deps ??= { value: depsOf(common) };
        return deps.value;
      };
      return {
        tools: tools.map((tool) => ({ spec: tool, handler: () => tool.handler(depsHere(), session) })),
        prompts: prompts.map(
          (prompt): BoundPrompt => ({
            spec: prompt,
            messages: (args) => prompt.messages(args, depsHere()),
            complete(argument, request) {
              const source = Object.hasOwn(prompt.complete, argument) ? prompt.complete[argument] : undefined;
              return source && Promise.resolve().then(() => source({ ...request, deps: depsHere() }));
            },
          }),
        ),
      };
    },
  };
}

/** The group without the named tools (the combined server lists one `list_jobs` of its own); its prompts stay. */
export function exceptTools(group: ToolGroup, names: readonly string[]): ToolGroup {
  const dropped = new Set(names);
  return {
    icons: group.icons,
    tools: group.tools.filter((tool) => !dropped.has(tool.name)),
    prompts: group.prompts,
    bind: (common, session) => {
      const bound = group.bind(common, session);
      return { tools: bound.tools.filter((tool) => !dropped.has(tool.spec.name)), prompts: bound.prompts };
    },
  };
}
