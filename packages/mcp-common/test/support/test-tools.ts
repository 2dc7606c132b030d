/** A tool group of test tools on the common dependencies, for a server built with `createPolymodalServer`. */
import os from 'node:os';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { createFileAccess } from '@polymodal/core/files';
import type { JobLedger } from '@polymodal/core/ledger';
import {
  createSdkServer,
  installTools,
  type McpServer,
  type ToolInstallation,
} from '../../src/server/sdk-server.js';
import { type Tool, toolGroup } from '../../src/tools/define-tool.js';
import type { ToolDeps } from '../../src/tools/tool-deps.js';

export function testTools(...tools: Tool<ToolDeps>[]) {
  return toolGroup({ tools });
}

/**
 * A client connected (in memory) to a server with just `tools`, each given `deps`: the installer as every
 * server uses it, without a platform context.
 */
export async function connectTools<D>(tools: readonly Tool<D>[], deps: D): Promise<Client> {
  return connectClient(
    serverWithTools({
      groups: [toolGroup({ tools, deps: () => deps })],
      files: createFileAccess({ allowedDirs: [], outputDir: os.tmpdir() }),
    }),
  );
}

/** An SDK client connected to `server` in memory. */
export async function connectClient(server: McpServer): Promise<Client> {
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return client;
}

/**
 * A server with `groups` installed as every server installs its tools, without a platform context: the
 * groups' tools get their own dependencies; calls are neither counted nor preceded by a platform client.
 */
export function serverWithTools(options: {
  groups: ToolInstallation['groups'];
  files: ToolInstallation['files'];
  name?: string;
  version?: string;
  instructions?: string;
  within?: ToolInstallation['within'];
  views?: ToolInstallation['views'];
  /** Which tools this server offers (default: every one). */
  keep?: ToolInstallation['keep'];
  /** Where the installer's warnings go (default: nowhere). */
  log?: ToolInstallation['log'];
}): McpServer {
  const name = options.name ?? 'test';
  const version = options.version ?? '1.0.0';
  const server = createSdkServer({ name, title: name, version, instructions: options.instructions ?? '' });
  installTools(server, {
    server: { name, version },
    groups: options.groups,
    // Nothing reads the common dependencies here: the groups' tools get their own dependencies.
    common: { toolDeadlineSeconds: 50 } as ToolDeps,
    ...(options.within ? { within: options.within } : {}),
    keep: options.keep ?? (() => true),
    metrics: { toolCall: () => undefined },
    loadPlatformClient: () => Promise.resolve(),
    files: options.files,
    log: options.log ?? { warning: () => undefined },
    ...(options.views ? { views: options.views } : {}),
  });
  return server;
}

/** The common dependencies as far as `list_jobs` reads them: a ledger, no secrets, no hidden directories. */
export function ledgerDeps(ledger: JobLedger): ToolDeps {
  return { platform: { ledger, secrets: [], hiddenDirs: () => [] } } as unknown as ToolDeps;
}
