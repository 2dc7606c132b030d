/**
 * The installer's prompts (see `sdk-server.ts`): the prompts whose tools are all offered on a server
 * instance, and the completion of their arguments.
 *
 * The SDK answers `prompts/list` (in the order registered, each argument with its description) and
 * `prompts/get` (the arguments checked against the prompt's object; an unknown prompt -32602). Completion is
 * answered here, not through the SDK's `completable()`: its callbacks get neither the request's signal nor
 * whether it came over HTTP, which a file completion must know so as never to name a server path, and the
 * prompt's sources are data of the prompt, run with the server instance's dependencies (the tenant's ledger
 * and files over HTTP). The answers keep the SDK's own wording for what does not exist, which the
 * conformance suites check.
 */
import { type McpServer, ProtocolError, type ServerContext } from '@modelcontextprotocol/server';
import type { FileAccess } from '@polymodal/core/files';
import type { Logger } from '../logging/create-logger.js';
import { listOutputResources, OUTPUT_RESOURCE_PREFIX } from '../outputs/output-resources.js';
import { type Completion, MAX_COMPLETION_VALUES, matching } from '../prompts/completion.js';
import type { BoundPrompt } from '../prompts/define-prompt.js';
import type { Icon } from '../protocol/sdk-types.js';
import { standardSchemaOf } from './standard-schema-of.js';

export interface PromptOfGroup {
  prompt: BoundPrompt;
  icons: readonly Icon[];
}

/**
 * How long a completion may take: hosts complete while a person types, and an answer after this would come
 * too late to be shown. A source still running then is abandoned and the answer is empty.
 */
export const COMPLETION_TIME_LIMIT_MS = 1_500;

/** The URI template of the saved outputs, whose `name` is completed with the outputs' names. */
const OUTPUTS_TEMPLATE = `${OUTPUT_RESOURCE_PREFIX}{name}`;

/**
 * Registers the prompts whose tools are all offered on this server (so the toolsets and the read-only mode
 * choose the prompts too) and answers `completion/complete` for them. With none kept, nothing is declared:
 * the server answers as one without prompts.
 */
export function installPrompts(
  server: McpServer,
  options: {
    prompts: readonly PromptOfGroup[];
    offered: ReadonlySet<string>;
    files: FileAccess;
    log: Pick<Logger, 'warning'>;
  },
): void {
  const kept = options.prompts.filter(({ prompt }) =>
    prompt.spec.uses.every((name) => options.offered.has(name)),
  );
  if (kept.length === 0) return;
  // Declared before the first registration, which would otherwise declare `listChanged: true`: the prompts
  // never change while a server runs, and a server built per request could not say that they had.
  server.server.registerCapabilities({ prompts: { listChanged: false }, completions: {} });
  const byName = new Map<string, BoundPrompt>();
  for (const { prompt, icons } of kept) {
    const { spec } = prompt;
    if (byName.has(spec.name)) throw new Error(`Prompt ${spec.name} is listed twice`);
    byName.set(spec.name, prompt);
    server.registerPrompt(
      spec.name,
      {
        title: spec.title,
        description: spec.description,
        argsSchema: standardSchemaOf(spec.args),
        ...(icons.length > 0 ? { icons: [...icons] } : {}),
      },
      (args) => ({ messages: [...prompt.messages(args)] }),
    );
  }
  server.server.setRequestHandler('completion/complete', async (request, ctx) => {
    const { ref, argument, context } = request.params;
    let completion: Promise<Completion> | undefined;
    if (ref.type === 'ref/prompt') {
      const prompt = byName.get(ref.name);
      if (!prompt) throw new ProtocolError(-32602, `Prompt ${ref.name} not found`);
      completion = prompt.complete(argument.name, {
        value: argument.value,
        arguments: context?.arguments ?? {},
        signal: completionSignal(ctx),
        overHttp: ctx.http !== undefined,
      });
    } else {
      if (ref.uri !== OUTPUTS_TEMPLATE) {
        throw new ProtocolError(-32602, `Resource template ${ref.uri} not found`);
      }
      if (argument.name === 'name') completion = outputNames(options.files, argument.value);
    }
    const { values, hasMore } = await settled(completion, options.log);
    return {
      completion: {
        values: values.slice(0, MAX_COMPLETION_VALUES),
        hasMore: hasMore === true || values.length > MAX_COMPLETION_VALUES,
      },
    };
  });
}

/** Aborted when the host cancels the request or when the completion's time is up. */
function completionSignal(ctx: ServerContext): AbortSignal {
  return AbortSignal.any([ctx.mcpReq.signal, AbortSignal.timeout(COMPLETION_TIME_LIMIT_MS)]);
}

/**
 * The source's answer, or nothing when it failed or did not answer in time: a completion is a suggestion,
 * and its failure (a catalog that did not answer, a folder that vanished) must not become an error a host
 * shows while a person types. The log says what failed, never to the caller.
 */
async function settled(
  completion: Promise<Completion> | undefined,
  log: Pick<Logger, 'warning'>,
): Promise<Completion> {
  if (completion === undefined) return { values: [] };
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Completion>((resolve) => {
    timer = setTimeout(() => resolve({ values: [] }), COMPLETION_TIME_LIMIT_MS);
  });
  try {
    return await Promise.race([completion, late]);
  } catch (error) {
    log.warning('a completion failed', { error: error instanceof Error ? error.message : String(error) });
    return { values: [] };
  } finally {
    clearTimeout(timer);
  }
}

/** The saved outputs' names (as the template's `name`), newest first. */
async function outputNames(files: FileAccess, typed: string): Promise<Completion> {
  const { resources } = await listOutputResources(files);
  return matching(
    resources.map((resource) => resource.uri.slice(OUTPUT_RESOURCE_PREFIX.length)),
    typed,
  );
}
