/**
 * One MCP server made of several Polymodal servers: their tool groups installed together on one server,
 * with one context, the roots and the connection. The per-service `list_jobs` tools are replaced by one
 * that lists the jobs of every service included.
 */
import type { McpServerName } from '../jobs/job-services.js';
import { jobsServedBy, listJobsTool } from '../jobs/list-jobs-tool.js';
import type { Icon } from '../protocol/sdk-types.js';
import type { ServerInstance } from '../runners/server-instance.js';
import { exceptTools, type ToolGroup, toolGroup } from '../tools/define-tool.js';
import { createPolymodalServer, type PolymodalServerDeps } from './create-polymodal-server.js';

/** A server included in the combined one. */
export interface ComposedServer {
  /** The server's name (`jobServicesOf`): the shared `list_jobs` shows the jobs of its services. */
  name: McpServerName;
  /** The server's tools (its package's tool group). */
  tools: ToolGroup;
}

export interface ComposePolymodalServersOptions {
  name: string;
  title: string;
  version: string;
  instructions: string;
  /** The combined server's icons, also listed on its `list_jobs`; each mounted tool keeps its own server's. */
  icons?: readonly Icon[];
  deps?: PolymodalServerDeps;
  servers: readonly ComposedServer[];
}

export function composePolymodalServers(options: ComposePolymodalServersOptions): ServerInstance {
  const listJobs = toolGroup({
    ...(options.icons ? { icons: options.icons } : {}),
    tools: [
      listJobsTool({ ...jobsServedBy(options.servers.map((composed) => composed.name)), noun: 'jobs' }),
    ],
  });
  return createPolymodalServer({
    name: options.name,
    title: options.title,
    version: options.version,
    instructions: options.instructions,
    ...(options.icons ? { icons: options.icons } : {}),
    deps: options.deps,
    groups: [...options.servers.map((composed) => exceptTools(composed.tools, ['list_jobs'])), listJobs],
  });
}
