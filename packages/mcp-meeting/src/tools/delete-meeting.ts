/**
 * delete_meeting: permanently removes a stopped recording and its files. Without confirm=true it only
 * shows what would be deleted, so a model cannot destroy a recording in one careless call.
 */

import type { ToolDeps } from '@polymodal/mcp-common';
import { defineTool } from '@polymodal/mcp-common';
import { z } from 'zod';
import { jobIdSchema, meetingToolError, readJob } from './meeting-tool-deps.js';

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const deleteMeetingInput = {
  jobId: jobIdSchema,
  confirm: z.boolean().default(false).describe('true to delete.'),
};

// Terse (issue 14): a preview's status, title and next pass as further properties.
const deleteMeetingOutput = z.looseObject({ jobId: z.string(), deleted: z.boolean() });

export const deleteMeetingTool = defineTool({
  name: 'delete_meeting',
  title: 'Delete a meeting recording',
  description:
    'Permanently deletes a stopped meeting job and its results (409 while running). Without confirm: a ' +
    'preview.',
  inputSchema: deleteMeetingInput,
  outputSchema: deleteMeetingOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  handler: (deps: ToolDeps) => async (args, extra) => {
    try {
      if (!args.confirm) {
        const job = await readJob(deps, args.jobId, extra.signal);
        const next = `call delete_meeting with jobId=${job.id} and confirm=true to delete it permanently`;
        return {
          content: [
            {
              type: 'text',
              text:
                `Not deleted yet: meeting job ${job.id}${job.title ? ` "${job.title}"` : ''} (${job.status}). ` +
                `Deleting removes the recording and all its results for good. Next: ${next}.`,
            },
          ],
          structuredContent: {
            jobId: job.id,
            deleted: false,
            status: job.status,
            title: job.title ?? null,
            next,
          },
        };
      }
      await deps.platform.client.meeting.delete(args.jobId, {
        signal: extra.signal,
        deadline: Date.now() + deps.toolDeadlineSeconds * 1000,
      });
      // The core client also marks the ledger entry DELETED, so the same file is not "resumed" later.
      deps.platform.log.info(`deleted meeting job ${args.jobId}`);
      return {
        content: [
          { type: 'text', text: `Deleted meeting job ${args.jobId} and its files from the platform.` },
        ],
        structuredContent: { jobId: args.jobId, deleted: true },
      };
    } catch (error) {
      return meetingToolError(error, deps, { jobId: args.jobId });
    }
  },
});
