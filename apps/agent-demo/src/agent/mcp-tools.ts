/**
 * Exposes the tools of connected MCP servers to the agent: names, descriptions and input schemas as the
 * servers list them, and calls that go back through MCP with progress shown as it happens.
 */
import { callTool } from '../call-tool.js';
import type { Reporter } from '../reporter.js';
import type { ConnectedServer } from '../servers.js';
import type { AgentTool } from './run-agent.js';

export async function collectMcpTools(
  servers: readonly ConnectedServer[],
  reporter: Reporter,
): Promise<AgentTool[]> {
  const tools: AgentTool[] = [];
  const seen = new Set<string>();
  for (const server of servers) {
    const { tools: listed } = await server.client.listTools();
    for (const tool of listed) {
      // Tool names are unique across the Polymodal servers; if two ever clash, the first server wins.
      if (seen.has(tool.name)) continue;
      seen.add(tool.name);
      tools.push({
        server: server.name,
        spec: {
          name: tool.name,
          description: tool.description ?? '',
          parameters: tool.inputSchema as Record<string, unknown>,
        },
        call: (args, signal) =>
          callTool({
            server: server.name,
            client: server.client,
            tool: tool.name,
            arguments: args,
            reporter,
            signal,
          }),
      });
    }
  }
  return tools;
}
