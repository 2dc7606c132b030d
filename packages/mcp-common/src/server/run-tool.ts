/**
 * How the installer runs one tool's handler, for a tool call and for a task's read alike (`sdk-server.ts`,
 * `install-tasks.ts`): the platform client loaded first (not when a host only lists the tools), the handler
 * built once per server instance, a question it asks answered as the request allows, and saved outputs
 * linked as resources afterwards.
 */
import { type InputRequiredResult, isInputRequiredResult } from '@modelcontextprotocol/server';
import { addResourceLinks } from '../outputs/link-output-resources.js';
import type { CallToolResult, ToolExtra } from '../protocol/sdk-types.js';
import type { BoundTool, ToolHandler, ToolSpec } from '../tools/define-tool.js';
import type { ToolInstallation } from './sdk-server.js';

/** Wraps a run of the handler (`withQuestions`: a question becomes the call's answer). */
export type AskAround = (run: () => Promise<CallToolResult>) => Promise<CallToolResult | InputRequiredResult>;

export type ToolRunner = (
  args: Record<string, unknown>,
  extra: ToolExtra,
  around?: AskAround,
) => Promise<CallToolResult | InputRequiredResult>;

export function toolRunner(
  tool: BoundTool,
  installation: Pick<ToolInstallation, 'loadPlatformClient' | 'files'>,
): ToolRunner {
  let handler: ToolHandler | undefined;
  return async (args, extra, around) => {
    await installation.loadPlatformClient();
    handler ??= tool.handler();
    const run = () => (handler as ToolHandler)(args, extra);
    const answered = around ? await around(run) : await run();
    if (isInputRequiredResult(answered)) return answered;
    return addResourceLinks(answered, installation.files, extra.overHttp === true);
  };
}

/**
 * A result checked against the tool's output schema, where the SDK does not check it: a tool that may answer
 * with a task is registered without its schema (a task is no tool result), so its results are checked here,
 * with the SDK's own answer to a result that fails.
 */
export function checkedOutput(spec: ToolSpec, result: CallToolResult): CallToolResult {
  if (!spec.outputSchema || result.isError) return result;
  if (result.structuredContent === undefined) {
    return outputError(`Tool ${spec.name} has an output schema but no structured content was provided`);
  }
  const parsed = spec.outputSchema.safeParse(result.structuredContent);
  if (parsed.success) return result;
  const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
  return outputError(`Invalid structured content for tool ${spec.name}: ${issues.join('; ')}`);
}

function outputError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: `Output validation error: ${message}` }], isError: true };
}
