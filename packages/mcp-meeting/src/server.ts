/**
 * The Polymodal meeting MCP server: tools to transcribe, translate and summarize meeting recordings on the
 * platform, with the shared long-job contract, file confinement and error results of mcp-common.
 */
import { createRequire } from 'node:module';
import {
  createPolymodalServer,
  type PolymodalServerDeps,
  type ServerInstance,
} from '@polymodal/mcp-common/host';
import { MEETING_ICON } from './icon.js';
import { meetingTools } from './tools/index.js';

export const SERVER_NAME = 'polymodal-mcp-meeting';

const require = createRequire(import.meta.url);
/** Same file from src/ (tests) and dist/ (published): both sit one level below the package root. */
const { version } = require('../package.json') as { version: string };

const INSTRUCTIONS = `Polymodal meeting summaries. Typical flow: summarize_meeting with the path of a local recording (it uploads, starts the job and waits up to 50 s); if it returns done=false, call get_meeting with the jobId and waitSeconds up to 50 until done=true. Then read the transcript page by page with get_meeting, name speakers with update_meeting, save files with export_meeting. Never resubmit a file to check on it: summarize_meeting on the same file joins or resumes the recorded job, and list_jobs shows the jobs started here. Processing costs 4 credits per started minute (platform minimum), charged once on success.`;

export type MeetingServerDeps = PolymodalServerDeps;

export function createServer(deps: MeetingServerDeps = {}): ServerInstance {
  return createPolymodalServer({
    name: SERVER_NAME,
    title: 'Polymodal meeting summaries',
    version,
    instructions: INSTRUCTIONS,
    deps,
    icons: [MEETING_ICON],
    groups: [meetingTools],
  });
}

export { meetingTools } from './tools/index.js';
