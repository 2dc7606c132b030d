/**
 * The MCP SDK's protocol types the tool kit names, from one place: tool files and mcp-common import them
 * from here (or from the package entry), so a move to the SDK's next major version changes these lines.
 */
export type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
export type {
  CallToolResult,
  ElicitRequestFormParams,
  ElicitResult,
  Icon,
  ResourceLink,
  ServerNotification,
  ServerRequest,
  ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';

import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';

/** The context of one tool call: its signal, progress token, and the way to notify or ask the client. */
export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;
