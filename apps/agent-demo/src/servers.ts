/**
 * Spawns the Polymodal MCP servers over stdio, the way Claude Desktop does: `node <bin>` with the
 * environment they need, and connects an MCP client to each that negotiates the protocol generation
 * (2026-07-28 through `server/discover`, or 2025-11-25 through `initialize` with an older server).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { Client, type ProtocolEra } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

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
  /** The protocol revision this connection negotiated, such as `2026-07-28` or `2025-11-25`. */
  protocolVersion: string;
  /** `modern` for a 2026-07-28+ revision (`server/discover`), `legacy` for the 2025 `initialize` handshake. */
  era: ProtocolEra;
  close(): Promise<void>;
}

/**
 * The SDK's own stdio transport answers `versionNegotiation` by spawning a second, short-lived copy of the
 * server only to send it `server/discover` (for `mode: 'auto'` and a pinned version alike), and starts the
 * real one after that answer: that spares a 2025 server that exits on any request before `initialize`.
 * Starting every server twice makes the demo's start-up (three servers, then their tool lists) about 70%
 * longer. A subclass of the transport is probed on its own connection, as `ClientOptions.versionNegotiation`
 * documents: one process per server, no slower than the 2025 handshake, and a 2025 server that answers the
 * probe with an error, as SDK 1.x servers do, still falls back to `initialize`. Only a server that exits on the probe would fail to
 * connect, and the demo spawns none: its servers answer both generations.
 */
class StdioTransportProbedInPlace extends StdioClientTransport {}

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
  const transport = new StdioTransportProbedInPlace({
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
  const client = new Client(
    { name: 'polymodal-demo', version: '0.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(transport);
  const protocolVersion = client.getNegotiatedProtocolVersion();
  const era = client.getProtocolEra();
  if (protocolVersion === undefined || era === undefined) {
    await client.close();
    throw new Error(
      `The ${options.name} server connected without a protocol version; check its stderr (--verbose).`,
    );
  }
  return { name: options.name, client, protocolVersion, era, close: () => client.close() };
}
