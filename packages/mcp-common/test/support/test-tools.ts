/** A tool group of test tools on the common context, for a server built with `createPolymodalServer`. */
import os from 'node:os';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { createFileAccess } from '@polymodal/core/files';
import type { JobLedger } from '@polymodal/core/ledger';
import { createSdkServer, installTools } from '../../src/server/sdk-server.js';
import { sameContext, type ToolDefinition, toolGroup } from '../../src/tools/define-tool.js';
import type { ToolContext } from '../../src/tools/tool-context.js';

export function testTools(...tools: ToolDefinition<ToolContext>[]) {
  return toolGroup({ tools, toolContext: sameContext });
}

/**
 * A client connected (in memory) to a server with just `tools`, each given `deps`: the installer as every
 * server uses it, without a server context.
 */
export async function connectTools<D>(tools: readonly ToolDefinition<D>[], deps: D): Promise<Client> {
  const server = createSdkServer({ name: 'test', title: 'Test', version: '1.0.0', instructions: '' });
  installTools(server, {
    server: { name: 'test', version: '1.0.0' },
    groups: [toolGroup({ tools, toolContext: () => deps })],
    // Nothing reads the common context here: the group's tools get `deps`.
    common: { toolDeadlineSeconds: 50 } as ToolContext,
    keep: () => true,
    metrics: { toolCall: () => undefined },
    loadPlatformClient: () => Promise.resolve(),
    files: createFileAccess({ allowedDirs: [], outputDir: os.tmpdir() }),
  });
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return client;
}

/** The common context as far as `list_jobs` reads it: a ledger, no secrets, no hidden directories. */
export function ledgerContext(ledger: JobLedger): ToolContext {
  return { context: { ledger, secrets: [], hiddenDirs: () => [] } } as unknown as ToolContext;
}
