/**
 * What every tool of the speech server receives, and the error result they share.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type RootsSync, type ServerContext, toolError } from '@polymodal/mcp-common';

export interface SpeechToolDeps {
  context: ServerContext;
  /** The client's roots, added to the allowed directories once known. */
  roots: RootsSync;
  /** Pause between polls of a queued task. */
  pollIntervalMs: number;
}

export function speechToolError(error: unknown, deps: SpeechToolDeps): CallToolResult {
  return toolError(error, { secrets: deps.context.secrets });
}
