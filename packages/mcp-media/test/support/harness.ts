/** Test harness of the media server: mcp-common's server harness (sandbox, temp dirs, secret-checked calls). */

import { type ServerHarness, startServerHarness } from '@polymodal/mcp-common/testing';
import type { SandboxConfig } from '@polymodal/sandbox';
import { createServer } from '../../src/server.js';

export type { Connection, ToolResult } from '@polymodal/mcp-common/testing';
export type MediaHarness = ServerHarness;

export function startMediaHarness(
  options: { speed?: number; pollIntervalMs?: number; config?: SandboxConfig } = {},
): Promise<MediaHarness> {
  return startServerHarness({ ...options, createServer, name: 'mcp-media-' });
}
