/**
 * What every tool of the speech server receives, and the error result they share.
 */
import type { CallToolResult } from '@polymodal/mcp-common';
import { type ToolContext, type ToolErrorHints, toolError } from '@polymodal/mcp-common';

export type SpeechToolDeps = ToolContext;

export function speechToolError(
  error: unknown,
  deps: SpeechToolDeps,
  hints?: ToolErrorHints,
): CallToolResult {
  return toolError(error, {
    secrets: deps.context.secrets,
    hiddenDirs: deps.context.hiddenDirs(),
    ...(hints ? { hints } : {}),
  });
}
