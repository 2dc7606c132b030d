/**
 * Registers every tool of the meeting server.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { MEETING_SERVICE } from '@polymodal/core/constants';
import { registerListJobsTool } from '@polymodal/mcp-common';
import { registerCancelMeeting } from './cancel-meeting.js';
import { registerDeleteMeeting } from './delete-meeting.js';
import { registerExportMeeting } from './export-meeting.js';
import { registerGetMeeting } from './get-meeting.js';
import { registerListMeetings } from './list-meetings.js';
import type { MeetingToolDeps } from './meeting-tool-deps.js';
import { registerResummarizeMeeting } from './resummarize-meeting.js';
import { registerRetranslateMeeting } from './retranslate-meeting.js';
import { registerRetryMeeting } from './retry-meeting.js';
import { registerSummarizeMeeting } from './summarize-meeting.js';
import { registerUpdateMeeting } from './update-meeting.js';

export type { MeetingToolDeps } from './meeting-tool-deps.js';

export function registerMeetingTools(server: McpServer, deps: MeetingToolDeps): void {
  registerSummarizeMeeting(server, deps);
  registerGetMeeting(server, deps);
  registerListMeetings(server, deps);
  registerCancelMeeting(server, deps);
  registerRetryMeeting(server, deps);
  registerResummarizeMeeting(server, deps);
  registerRetranslateMeeting(server, deps);
  registerUpdateMeeting(server, deps);
  registerDeleteMeeting(server, deps);
  registerExportMeeting(server, deps);
  registerListJobsTool(server, {
    ledger: deps.context.ledger,
    services: [MEETING_SERVICE],
    secrets: deps.context.secrets,
    hiddenDirs: () => deps.context.hiddenDirs(),
    getTool: 'get_meeting',
    noun: 'meeting jobs',
  });
}
