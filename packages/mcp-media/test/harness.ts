/** Test harness of the media server: mcp-common's server harness (sandbox, temp dirs, secret-checked calls). */
import type { SandboxConfig } from '@polymodal/sandbox';
import { type ServerHarness, startServerHarness } from '../../mcp-common/test/support/server-harness.js';
import { createServer } from '../src/server.js';

export type { Connection, ToolResult } from '../../mcp-common/test/support/server-harness.js';
export type MediaHarness = ServerHarness;

export function startMediaHarness(
  options: { speed?: number; pollIntervalMs?: number; config?: SandboxConfig } = {},
): Promise<MediaHarness> {
  return startServerHarness({ ...options, createServer, name: 'mcp-media-' });
}
