#!/usr/bin/env node
// Baseline for the start-up benchmark: the smallest useful MCP server built with the same SDK (one tool, stdio),
// served as the Polymodal bins serve it: `serveStdio` with both protocol generations (2025-11-25 `initialize`
// and 2026-07-28), one server from the factory per connection.
// The benchmark bundles it with esbuild before spawning it (buildOneToolFloor in tool-context.mjs).
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

serveStdio(
  () => {
    const server = new McpServer({ name: 'one-tool', version: '0.0.0' });
    server.registerTool(
      'echo',
      { description: 'Echo the text back.', inputSchema: z.object({ text: z.string() }) },
      async ({ text }) => ({ content: [{ type: 'text', text }] }),
    );
    return server;
  },
  { legacy: 'serve' },
);
