/**
 * cancel_meeting: stops a job that is still processing (nothing is charged for it).
 */

import type { ToolDeps } from '@polymodal/mcp-common';
import { defineTool } from '@polymodal/mcp-common';
import { jobIdSchema } from './meeting-tool-deps.js';
import { jobActionOutputSchema, runJobAction } from './run-job-action.js';

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const cancelMeetingInput = { jobId: jobIdSchema };

export const cancelMeetingTool = defineTool({
  name: 'cancel_meeting',
  title: 'Cancel a meeting job',
  description:
    'Cancels a running meeting job (409 if stopped); nothing is charged. Poll get_meeting until CANCELLED.',
  inputSchema: cancelMeetingInput,
  outputSchema: jobActionOutputSchema,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  handler: (deps: ToolDeps) => async (args, extra) =>
    runJobAction(deps, { action: 'cancel', jobId: args.jobId, waitSeconds: 0, extra }),
});
