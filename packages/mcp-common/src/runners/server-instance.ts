/**
 * What a server module hands to the runners: one MCP server and the cleanup that releases what it owns.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

export interface ServerInstance {
  server: McpServer;
  cleanup(): Promise<void>;
}

export type ServerFactory = () => ServerInstance | Promise<ServerInstance>;
