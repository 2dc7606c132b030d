/**
 * retranslate_meeting: translates the existing transcript into another language, without a new charge.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { MeetingLanguage } from '@polymodal/core';
import { createWaitSecondsSchema } from '@polymodal/mcp-common';
import { jobIdSchema, type MeetingToolDeps } from './meeting-tool-deps.js';
import { JOB_ACTION_ANNOTATIONS, jobActionOutputSchema, runJobAction } from './run-job-action.js';

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const retranslateMeetingInput = {
  jobId: jobIdSchema,
  targetLanguage: MeetingLanguage.describe('Language to translate into.'),
  waitSeconds: createWaitSecondsSchema(0),
};

export function registerRetranslateMeeting(server: McpServer, deps: MeetingToolDeps): void {
  server.registerTool(
    'retranslate_meeting',
    {
      title: 'Translate a meeting again',
      description:
        'Translates the transcript of a meeting into another targetLanguage (processing must have stopped and a ' +
        'transcript must exist, else 409). Replaces the previous translation. No new charge for an already ' +
        'charged recording. Runs asynchronously: poll with get_meeting (include ["translation"]), or give ' +
        'waitSeconds (max 50) to wait here.',
      inputSchema: retranslateMeetingInput,
      outputSchema: jobActionOutputSchema,
      // Destructive: the new translation replaces the job's current one, which cannot be fetched again.
      annotations: { title: 'Translate a meeting again', ...JOB_ACTION_ANNOTATIONS, destructiveHint: true },
    },
    async (args, extra) =>
      runJobAction(deps, {
        action: 'retranslate',
        jobId: args.jobId,
        targetLanguage: args.targetLanguage,
        waitSeconds: args.waitSeconds,
        extra,
      }),
  );
}
