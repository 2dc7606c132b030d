/**
 * resummarize_meeting: writes the summary again from the existing transcript, without a new charge.
 */

import type { ToolDeps } from '@polymodal/mcp-common';
import { createWaitSecondsSchema, defineTool } from '@polymodal/mcp-common';
import { MEETING_VIEWER_VIEW } from '../views/meeting-viewer-view.js';
import { jobIdSchema } from './meeting-tool-deps.js';
import { JOB_ACTION_ANNOTATIONS, jobActionOutputSchema, runJobAction } from './run-job-action.js';

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const resummarizeMeetingInput = { jobId: jobIdSchema, waitSeconds: createWaitSecondsSchema(0) };

export const resummarizeMeetingTool = defineTool({
  name: 'resummarize_meeting',
  title: 'Regenerate a meeting summary',
  description:
    'Rewrites the summary of a stopped meeting job from its transcript (else 409), replacing it. Free. ' +
    'Then get_meeting.',
  inputSchema: resummarizeMeetingInput,
  outputSchema: jobActionOutputSchema,
  // Destructive: the new summary replaces the job's current one, which cannot be fetched again.
  asTask: true,
  annotations: { ...JOB_ACTION_ANNOTATIONS, destructiveHint: true },
  view: MEETING_VIEWER_VIEW,
  handler: (deps: ToolDeps) => async (args, extra) =>
    runJobAction(deps, { action: 'resummarize', jobId: args.jobId, waitSeconds: args.waitSeconds, extra }),
});
