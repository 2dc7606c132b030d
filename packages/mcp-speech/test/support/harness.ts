/** Test harness of the speech server: mcp-common's server harness (sandbox, temp dirs, secret-checked calls). */
import { type Connection, type ServerHarness, startServerHarness } from '@polymodal/mcp-common/testing';
import { createServer } from '../../src/server.js';

export type { Connection, ToolResult } from '@polymodal/mcp-common/testing';
export type SpeechHarness = ServerHarness;

export function startSpeechHarness(
  options: { speed?: number; pollIntervalMs?: number } = {},
): Promise<SpeechHarness> {
  return startServerHarness({ ...options, createServer, name: 'mcp-speech-' });
}

/** Another speech server with a short tool-call deadline (as `POLYMODAL_TOOL_DEADLINE_SECONDS` sets it). */
export function connectWithDeadline(harness: SpeechHarness, seconds: number): Promise<Connection> {
  return harness.connect({ POLYMODAL_TOOL_DEADLINE_SECONDS: String(seconds) });
}
