/**
 * Prompts as data, like tools. A prompt is a workflow a person picks by name in their host (a slash command in
 * Claude Code or VS Code, an entry of the attach menu in Claude Desktop): a few arguments, then one message
 * that tells the model which of the server's tools to call, in which order, with which arguments, and what to
 * hand back. Nothing in a prompt file talks to the MCP SDK: the installer (`server/sdk-server.ts`) registers
 * the prompts of a server's groups whose tools are all offered there, so a server that leaves out a tool
 * (toolsets, read-only mode) leaves out the prompts that call it.
 *
 * Every argument is a string on the wire (`prompts/get` carries `Record<string, string>`), so the argument
 * schemas are `z.string()` and `z.enum(...)`, optional or not. Hosts ask for them in the order of the field
 * map (Claude Code reads them positionally, space-separated): the essential single-token ones first, free
 * text last and optional, the prompt then telling the model to ask for it.
 */
import { z } from 'zod';
import type { PromptMessage } from '../protocol/sdk-types.js';
import type { ToolDeps } from '../tools/tool-deps.js';
import {
  type Completion,
  type CompletionRequest,
  type CompletionSource,
  enumValuesOf,
  oneOf,
} from './completion.js';

/** A prompt's arguments: each a string schema (`z.string()`, `z.enum`, optional or not) described for a person. */
export type PromptArgs = Record<string, z.ZodType<string | undefined, string | undefined>>;

/** What `prompts/list` shows of a prompt, and what the server checks before offering it. */
export interface PromptSpec {
  /** snake_case, like the tools: hosts show it as the command's name. */
  readonly name: string;
  readonly title: string;
  /** Written for a person picking a command: what the prompt does and what it costs. */
  readonly description: string;
  /** The tools the prompt's message calls: the prompt is offered only where every one of them is. */
  readonly uses: readonly string[];
  /** Checked by the server before `messages` runs; listed as the prompt's arguments. */
  readonly args: z.ZodObject;
}

/** A prompt: its spec, its message for checked arguments and a server's dependencies `D`, its completions. */
export interface Prompt<D> extends PromptSpec {
  messages(args: Record<string, unknown>, deps: D): readonly PromptMessage[];
  /** How each completable argument is completed (an enum's values unless the source says otherwise). */
  readonly complete: Readonly<Record<string, CompletionSource<D>>>;
}

/** A prompt as its file writes it: the arguments as a field map, `messages` typed by it. */
export interface PromptSource<D, S extends PromptArgs> {
  name: string;
  title: string;
  description: string;
  uses: readonly string[];
  args: S;
  messages(args: z.output<z.ZodObject<S>>, deps: D): readonly PromptMessage[];
  /**
   * Completion of the arguments people cannot remember (a path, a job id, a voice). An enum argument is
   * completed with its values without saying so here.
   */
  complete?: { readonly [K in keyof S]?: CompletionSource<D> };
}

/**
 * A prompt definition from its source. The argument field map becomes one zod object here, once per process,
 * the same object the server checks `prompts/get` against and converts for `prompts/list`.
 */
export function definePrompt<D = ToolDeps, S extends PromptArgs = PromptArgs>(
  source: PromptSource<D, S>,
): Prompt<D> {
  if (!/^[a-z][a-z0-9_]*$/.test(source.name)) throw new Error(`Prompt ${source.name} is not snake_case`);
  if (source.uses.length === 0) throw new Error(`Prompt ${source.name} names no tool it uses`);
  const complete: Record<string, CompletionSource<D>> = {};
  for (const [name, schema] of Object.entries(source.args)) {
    const values = enumValuesOf(schema);
    const given = source.complete?.[name];
    if (given) complete[name] = given;
    else if (values) complete[name] = oneOf(values);
  }
  return {
    name: source.name,
    title: source.title,
    description: source.description,
    uses: source.uses,
    args: objectOf(source.args),
    // The server checks the arguments against `args` before `messages` sees them, so they have the shape
    // its type names; the list of definitions cannot carry each prompt's own argument type.
    messages: (args, deps) => (source.messages as Prompt<D>['messages'])(withoutEmpty(args), deps),
    complete,
  };
}

/**
 * The arguments without those left empty: a host that asks for arguments in a form may send an optional
 * one the person skipped as "", which the prompt then treats as not given (asking for it where it would).
 */
function withoutEmpty(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([, value]) => value !== ''));
}

const objects = new WeakMap<PromptArgs, z.ZodObject>();

function objectOf(shape: PromptArgs): z.ZodObject {
  let object = objects.get(shape);
  if (object === undefined) {
    object = z.object(shape);
    objects.set(shape, object);
  }
  return object;
}

/** A prompt of a group, bound to one server instance: its spec, its message and completions with the group's dependencies. */
export interface BoundPrompt {
  readonly spec: PromptSpec;
  messages(args: Record<string, unknown>): readonly PromptMessage[];
  /** The completion of one argument; undefined when the argument is not completed. */
  complete(
    argument: string,
    request: Omit<CompletionRequest<unknown>, 'deps'>,
  ): Promise<Completion> | undefined;
}

/** The prompt's one message: from the person, as if they had typed it. */
export function userMessage(text: string): PromptMessage {
  return { role: 'user', content: { type: 'text', text } };
}

/**
 * Values the person gave, as they go into a prompt's text: JSON, so that they read as values (never as
 * instructions of the prompt's own) and pass to a tool's arguments unchanged. A string is quoted; an object
 * of a tool's arguments leaves out those not given (undefined).
 */
export function quoted(value: string | Readonly<Record<string, unknown>>): string {
  return JSON.stringify(value);
}
