/**
 * retranslate_meeting: translates the existing transcript into another language, without a new charge.
 */
import { MeetingLanguage } from '@polymodal/core/constants';
import type { ToolDeps } from '@polymodal/mcp-common';
import { createWaitSecondsSchema, defineTool } from '@polymodal/mcp-common';
import { MEETING_VIEWER_VIEW } from '../views/meeting-viewer-view.js';
import { jobIdSchema } from './meeting-tool-deps.js';
import { JOB_ACTION_ANNOTATIONS, jobActionOutputSchema, runJobAction } from './run-job-action.js';

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const retranslateMeetingInput = {
  jobId: jobIdSchema,
  targetLanguage: MeetingLanguage,
  waitSeconds: createWaitSecondsSchema(0),
};

export const retranslateMeetingTool = defineTool({
  name: 'retranslate_meeting',
  title: 'Translate a meeting again',
  description:
    'Translates a stopped meeting job into targetLanguage (else 409), replacing the old translation. ' +
    'Free. Then get_meeting.',
  inputSchema: retranslateMeetingInput,
  outputSchema: jobActionOutputSchema,
  // Destructive: the new translation replaces the job's current one, which cannot be fetched again.
  asTask: true,
  annotations: { ...JOB_ACTION_ANNOTATIONS, destructiveHint: true },
  view: MEETING_VIEWER_VIEW,
  handler: (deps: ToolDeps) => async (args, extra) =>
    runJobAction(deps, {
      action: 'retranslate',
      jobId: args.jobId,
      targetLanguage: args.targetLanguage,
      waitSeconds: args.waitSeconds,
      extra,
    }),
});
