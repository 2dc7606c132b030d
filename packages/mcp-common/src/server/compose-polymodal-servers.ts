/**
 * One MCP server made of several Polymodal servers: each server's own factory registers its tools (with its
 * own tool context) on the combined server, which holds the one context, the roots and the connection. The
 * per-service `list_jobs` tools are replaced by one that lists the jobs of every service included.
 */
import type { Icon } from '@modelcontextprotocol/sdk/types.js';
import { registerListJobsTool } from '../jobs/register-list-jobs-tool.js';
import type { ServerInstance } from '../runners/server-instance.js';
import { createPolymodalServer, type PolymodalServerDeps } from './create-polymodal-server.js';

const LIST_JOBS = 'list_jobs';

/** A server included in the combined one. */
export interface ComposedServer {
  /** The server's factory (its package's `createServer`), which passes its deps to createPolymodalServer. */
  createServer: (deps: PolymodalServerDeps) => ServerInstance;
  /** Job ledger services whose jobs the shared `list_jobs` shows. */
  jobServices: readonly string[];
  /** Tool that shows one of those jobs live, named in `list_jobs`'s description. */
  getTool: string;
}

export interface ComposePolymodalServersOptions {
  name: string;
  title: string;
  version: string;
  instructions: string;
  /** The combined server's icons; each mounted tool keeps its own server's. */
  icons?: readonly Icon[];
  deps?: PolymodalServerDeps;
  servers: readonly ComposedServer[];
}

export function composePolymodalServers(options: ComposePolymodalServersOptions): ServerInstance {
  return createPolymodalServer({
    name: options.name,
    title: options.title,
    version: options.version,
    instructions: options.instructions,
    ...(options.icons ? { icons: options.icons } : {}),
    deps: options.deps,
    register: (server, tools) => {
      for (const composed of options.servers) {
        composed.createServer({ mount: { server, tools, dropped: [LIST_JOBS] } });
      }
      registerListJobsTool(server, {
        ledger: tools.context.ledger,
        services: options.servers.flatMap((composed) => composed.jobServices),
        secrets: tools.context.secrets,
        hiddenDirs: () => tools.context.hiddenDirs(),
        getTool: options.servers.map((composed) => composed.getTool).join(', '),
        noun: 'jobs',
      });
    },
  });
}
