/**
 * The Polymodal meeting MCP server: tools to transcribe, translate and summarize meeting recordings on the
 * platform, with the shared long-job contract, file confinement and error results of mcp-common.
 */
import { createRequire } from 'node:module';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { MEETING_POLL_INTERVAL_MS } from '@polymodal/core';
import {
  createServerContext,
  type ServerContext,
  type ServerInstance,
  syncRoots,
} from '@polymodal/mcp-common';
import { registerMeetingTools } from './tools/index.js';

export const SERVER_NAME = 'polymodal-mcp-meeting';

const require = createRequire(import.meta.url);
/** Same file from src/ (tests) and dist/ (published): both sit one level below the package root. */
const { version } = require('../package.json') as { version: string };

const INSTRUCTIONS = `Polymodal meeting summaries. Typical flow: summarize_meeting with the path of a local recording (it uploads, starts the job and waits up to 50 s); if it returns done=false, call get_meeting with the jobId and waitSeconds up to 50 until done=true. Then read the transcript page by page with get_meeting, name speakers with update_meeting, save files with export_meeting. Never resubmit a file to check on it: summarize_meeting on the same file resumes the recorded job, and list_jobs shows the jobs started here. Processing costs 4 credits per started minute (platform minimum), charged once on success.`;

export interface MeetingServerDeps {
  /** Shared context; when absent one is built from `env` and closed by cleanup(). */
  context?: ServerContext;
  env?: NodeJS.ProcessEnv;
  /** Pause between polls while a tool waits (default 5000 ms, the spec's polling rule). */
  pollIntervalMs?: number;
}

export function createServer(deps: MeetingServerDeps = {}): ServerInstance {
  const ownsContext = deps.context === undefined;
  const context = deps.context ?? createServerContext({ env: deps.env, name: SERVER_NAME });
  const server = new McpServer(
    { name: SERVER_NAME, title: 'Polymodal meeting summaries', version },
    { capabilities: { logging: {} }, instructions: INSTRUCTIONS },
  );
  const detachLog = context.log.attach(server);
  const roots = syncRoots(server, context.files, { log: context.log });
  registerMeetingTools(server, {
    context,
    pollIntervalMs: deps.pollIntervalMs ?? MEETING_POLL_INTERVAL_MS,
    roots,
  });
  return {
    server,
    async cleanup() {
      detachLog();
      if (ownsContext) await context.close();
    },
  };
}

export type { MeetingToolDeps } from './tools/index.js';
