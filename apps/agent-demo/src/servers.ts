/**
 * Spawns the Polymodal MCP servers over stdio, the way Claude Desktop does: `node <bin>` with the
 * environment they need, and connects an MCP client to each.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const require = createRequire(import.meta.url);

export interface ServerEnv {
  POLYMODAL_BASE_URL: string;
  POLYMODAL_API_KEY: string;
  POLYMODAL_ALLOWED_DIRS: string;
  POLYMODAL_OUTPUT_DIR: string;
  POLYMODAL_STATE_DIR?: string;
}

export interface ConnectedServer {
  name: string;
  client: Client;
  close(): Promise<void>;
}

/** Absolute path of a server package's bin, resolved through the workspace dependency. */
export function serverBin(packageName: string, binName: string): string {
  const manifestPath = require.resolve(`${packageName}/package.json`);
  const manifest = require(manifestPath) as { bin: Record<string, string> };
  const relative = manifest.bin[binName];
  if (!relative) throw new Error(`${packageName} has no bin named ${binName}`);
  return path.join(path.dirname(manifestPath), relative);
}

export async function connectServer(options: {
  name: string;
  bin: string;
  env: ServerEnv;
  onLog?: (line: string) => void;
}): Promise<ConnectedServer> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [options.bin],
    env: Object.fromEntries(
      Object.entries({ PATH: process.env.PATH ?? '', ...options.env }).filter(
        (entry): entry is [string, string] => typeof entry[1] === 'string',
      ),
    ),
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) options.onLog?.(line);
  });
  const client = new Client({ name: 'polymodal-demo', version: '0.0.0' });
  await client.connect(transport);
  return { name: options.name, client, close: () => client.close() };
}
