/**
 * What a server module hands to the runners: one MCP server and the cleanup that releases what it owns.
 * The runner tells the factory which context to build on: over HTTP, the caller's tenant context, shared by
 * all of that tenant's requests; over stdio, none, so the server builds its own from the environment.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import type { PlatformContext } from '../context/create-platform-context.js';

export interface ServerInstance {
  server: McpServer;
  cleanup(): Promise<void>;
}

export interface ServerFactoryRequest {
  /** Shared context to build on; the server must not close it. Absent: the server builds and owns one. */
  platform?: PlatformContext;
}

export type ServerFactory = (request?: ServerFactoryRequest) => ServerInstance | Promise<ServerInstance>;
