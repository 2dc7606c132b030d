/**
 * The MCP SDK's protocol types the tool kit names, from one place: tool files and mcp-common import them
 * from here (or from the package entry), so a move to the SDK's next major version changes these lines.
 *
 * `ToolExtra` is the tool kit's own view of one call, not the SDK's handler context: the installer
 * (`server/sdk-server.ts`) builds it from that context once per call, so tools, `respondWithJob`, progress
 * and deadlines do not change when the SDK's context does (SDK 2.x moved the request's parts under
 * `ctx.mcpReq`).
 */
export type {
  CallToolResult,
  ClientCapabilities,
  ElicitRequestFormParams,
  ElicitResult,
  Icon,
  PromptMessage,
  ResourceLink,
  ServerNotification,
  ToolAnnotations,
} from '@modelcontextprotocol/server';

import type { ProgressToken, ServerNotification } from '@modelcontextprotocol/server';

/** The context of one tool call: its signal, its progress token, and the way to notify the client. */
export interface ToolExtra {
  /** Aborted when the client cancels the call or goes away. */
  readonly signal: AbortSignal;
  /** The request's `_meta`: the progress token, when the client asked for progress. */
  readonly _meta?: { progressToken?: ProgressToken; [key: string]: unknown } | undefined;
  /** Sends a notification related to this call (progress). */
  sendNotification(notification: ServerNotification): Promise<void>;
  /** Whether the call came over HTTP (tool results then link outputs as resources, never as server paths). */
  readonly overHttp?: boolean | undefined;
}
