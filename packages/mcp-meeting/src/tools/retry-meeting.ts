/**
 * retry_meeting: processes a FAILED or CANCELLED job again from its uploaded recording.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createWaitSecondsSchema } from '@polymodal/mcp-common';
import { jobIdSchema, type MeetingToolDeps } from './meeting-tool-deps.js';
import { JOB_ACTION_ANNOTATIONS, jobActionOutputSchema, runJobAction } from './run-job-action.js';

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const retryMeetingInput = { jobId: jobIdSchema, waitSeconds: createWaitSecondsSchema(0) };

export function registerRetryMeeting(server: McpServer, deps: MeetingToolDeps): void {
  server.registerTool(
    'retry_meeting',
    {
      title: 'Retry a meeting job',
      description:
        'Processes a FAILED or CANCELLED meeting job again from its uploaded recording (409 otherwise). Charged ' +
        'only if it then completes (4 credits per started minute, platform minimum; never twice). Runs ' +
        'asynchronously: poll with get_meeting, or give waitSeconds (max 50) to wait here.',
      inputSchema: retryMeetingInput,
      outputSchema: jobActionOutputSchema,
      annotations: { title: 'Retry a meeting job', ...JOB_ACTION_ANNOTATIONS },
    },
    async (args, extra) =>
      runJobAction(deps, { action: 'retry', jobId: args.jobId, waitSeconds: args.waitSeconds, extra }),
  );
}
