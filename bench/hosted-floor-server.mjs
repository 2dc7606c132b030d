#!/usr/bin/env node
// The floor of the `hosted` section (hosted.mjs): the smallest hosted MCP server on the SDK version the
// lockfile pins, served as the SDK serves both protocol generations over HTTP: `createMcpHandler` with
// `legacy: 'stateless'` (a fresh server from the factory for every request, 2025-11-25 and 2026-07-28 alike)
// behind `toNodeHandler`, with one tool that returns a ~1 KB structured result checked against an output
// schema. Takes `--http --port 0` like the Polymodal bins and prints the same "endpoint at" line on stderr,
// so http-server-process.mjs starts and stops it alike.
import http from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

const itemSchema = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(['queued', 'running', 'done']),
  credits: z.number(),
  createdAt: z.string(),
});
const outputSchema = z.object({ items: z.array(itemSchema), count: z.number() });
// About 1 KB of JSON, the size of a short list_jobs page or a finished job's summary.
const items = Array.from({ length: 8 }, (_, index) => ({
  id: `job-${String(index).padStart(4, '0')}-${'x'.repeat(12)}`,
  title: `Weekly planning meeting number ${index}`,
  status: 'done',
  credits: 24 + index,
  createdAt: new Date(Date.UTC(2026, 10, 26, 12, index)).toISOString(),
}));
const structured = { items, count: items.length };

function buildServer() {
  const server = new McpServer({ name: 'hosted-floor', version: '0.0.0' });
  server.registerTool(
    'list_items',
    { description: 'Lists the items.', inputSchema: z.object({}), outputSchema },
    async () => ({
      content: [{ type: 'text', text: JSON.stringify(structured) }],
      structuredContent: structured,
    }),
  );
  return server;
}

const handle = toNodeHandler(createMcpHandler(buildServer, { legacy: 'stateless' }));
const portIndex = process.argv.indexOf('--port');
const port = portIndex === -1 ? 0 : Number(process.argv[portIndex + 1]);
const httpServer = http.createServer((request, response) => void handle(request, response));
httpServer.listen(port, '127.0.0.1', () => {
  process.stderr.write(`MCP Streamable HTTP endpoint at http://127.0.0.1:${httpServer.address().port}/mcp\n`);
});
process.once('SIGTERM', () => httpServer.close(() => process.exit(0)));
