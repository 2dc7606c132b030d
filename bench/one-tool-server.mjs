#!/usr/bin/env node
// Baseline for the start-up benchmark: the smallest useful MCP server built with the same SDK (one tool, stdio).
// The benchmark bundles it with esbuild before spawning it (buildOneToolFloor in tool-context.mjs).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'one-tool', version: '0.0.0' });
server.registerTool(
  'echo',
  { description: 'Echo the text back.', inputSchema: { text: z.string() } },
  async ({ text }) => ({ content: [{ type: 'text', text }] }),
);
await server.connect(new StdioServerTransport());
