/**
 * retry_meeting: processes a FAILED or CANCELLED job again from its uploaded recording.
 */

import type { ToolDeps } from '@polymodal/mcp-common';
import { createWaitSecondsSchema, defineTool } from '@polymodal/mcp-common';
import { MEETING_VIEWER_VIEW } from '../views/meeting-viewer-view.js';
import { jobIdSchema } from './meeting-tool-deps.js';
import { JOB_ACTION_ANNOTATIONS, jobActionOutputSchema, runJobAction } from './run-job-action.js';

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const retryMeetingInput = { jobId: jobIdSchema, waitSeconds: createWaitSecondsSchema(0) };

export const retryMeetingTool = defineTool({
  name: 'retry_meeting',
  title: 'Retry a meeting job',
  description:
    'Reprocesses a FAILED or CANCELLED meeting job (else 409); charged only on success, never twice. ' +
    'Then get_meeting.',
  inputSchema: retryMeetingInput,
  outputSchema: jobActionOutputSchema,
  asTask: true,
  annotations: JOB_ACTION_ANNOTATIONS,
  view: MEETING_VIEWER_VIEW,
  handler: (deps: ToolDeps) => async (args, extra) =>
    runJobAction(deps, { action: 'retry', jobId: args.jobId, waitSeconds: args.waitSeconds, extra }),
});
