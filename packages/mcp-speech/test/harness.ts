/**
 * Test harness of the speech server: a sandbox on loopback, temp state/allowed/output dirs, and MCP
 * clients over InMemoryTransport. Every result is checked for the API key.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Sandbox, startSandbox } from '@polymodal/sandbox';
import { expect } from 'vitest';
import { createServer } from '../src/server.js';

export interface ToolResult {
  isError: boolean;
  text: string;
  structured: Record<string, any>;
}

export interface Connection {
  client: Client;
  call(name: string, args?: Record<string, unknown>, options?: RequestOptions): Promise<ToolResult>;
  close(): Promise<void>;
}

export interface SpeechHarness extends Connection {
  sandbox: Sandbox;
  /** Temp root; it is also the allowed directory. */
  root: string;
  env: Record<string, string>;
  /** Another server on the same sandbox, with some variables changed (e.g. another key). */
  connect(overrides?: Record<string, string>): Promise<Connection>;
}

export async function startSpeechHarness(
  options: { speed?: number; pollIntervalMs?: number } = {},
): Promise<SpeechHarness> {
  const sandbox = await startSandbox({ speed: options.speed ?? 100 });
  const root = await mkdtemp(path.join(os.tmpdir(), 'mcp-speech-'));
  const env = {
    POLYMODAL_BASE_URL: sandbox.url,
    POLYMODAL_API_KEY: sandbox.apiKey,
    POLYMODAL_STATE_DIR: path.join(root, 'state'),
    POLYMODAL_ALLOWED_DIRS: root,
    POLYMODAL_OUTPUT_DIR: path.join(root, 'out'),
    POLYMODAL_LOG_LEVEL: 'error',
    // Test-only: reads of a task this far apart instead of the service's (honoured on loopback only).
    POLYMODAL_POLL_INTERVAL_MS: String(options.pollIntervalMs ?? 20),
  };
  const secrets = [
    sandbox.apiKey,
    sandbox.apiKey2,
    ...Object.values(sandbox.keys).filter((key): key is string => typeof key === 'string'),
  ];

  async function connect(overrides: Record<string, string> = {}): Promise<Connection> {
    const instance = createServer({ env: { ...env, ...overrides } });
    const client = new Client({ name: 'test', version: '1.0.0' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await instance.server.connect(serverSide);
    await client.connect(clientSide);
    return {
      client,
      async call(name, args = {}, requestOptions) {
        const result = (await client.callTool(
          { name, arguments: args },
          undefined,
          requestOptions,
        )) as CallToolResult;
        const serialized = JSON.stringify(result);
        for (const secret of secrets) expect(serialized).not.toContain(secret);
        const text = result.content.map((item) => (item.type === 'text' ? item.text : '')).join('\n');
        return {
          isError: result.isError === true,
          text,
          structured: (result.structuredContent ?? {}) as Record<string, any>,
        };
      },
      async close() {
        await client.close();
        await instance.cleanup();
      },
    };
  }

  const main = await connect();
  return {
    ...main,
    sandbox,
    root,
    env,
    connect,
    async close() {
      await main.close();
      await sandbox.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
