// The built meeting MCP server (bin polymodal-mcp-meeting) spawned over stdio, as a host spawns it, with an
// SDK client to call its tools. `close()` ends the process (stdin closed, then SIGTERM, then SIGKILL).

import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { binOf } from './sandbox-process.mjs';

export const MEETING_API = '/api/conference-summary/v1';

/** Five short lines (about 22 s of recording) for the sandbox to "recognise". */
export const SHORT_SCRIPT = [
  { speaker: 'Alice', text: 'Welcome everyone, today we review the launch plan for the beta.' },
  { speaker: 'Bob', text: 'We decided to ship the beta on Friday after the final review.' },
  { speaker: 'Alice', text: 'I will prepare the release notes by Thursday.' },
  { speaker: 'Carol', text: 'Should we also invite the support team to the launch call?' },
  { speaker: 'Bob', text: "I'll draft the announcement for customers." },
];

export async function startMeetingServer(env) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [binOf('@polymodal/mcp-meeting', 'polymodal-mcp-meeting')],
    env: { PATH: process.env.PATH ?? '', POLYMODAL_LOG_LEVEL: 'error', ...env },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '0.0.0' });
  try {
    await client.connect(transport);
  } catch (error) {
    await transport.close().catch(() => undefined);
    throw error;
  }
  return {
    /** The server process's id (for its RSS in /proc). */
    pid: transport.pid,
    /** One tool call; answers `{isError, text, structured}` instead of throwing on a tool error. */
    async call(name, args) {
      const result = await client.callTool({ name, arguments: args }, { timeout: 60_000 });
      return {
        isError: result.isError === true,
        text: (result.content ?? []).map((part) => part.text ?? '').join('\n'),
        structured: result.structuredContent ?? {},
      };
    },
    close: () => client.close().catch(() => undefined),
  };
}
