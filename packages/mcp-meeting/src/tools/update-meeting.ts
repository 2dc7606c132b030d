/**
 * update_meeting: rename a recording and/or its speakers. Speaker ids are checked against the transcript
 * before anything is sent, so a typo gets the list of valid ids instead of a bare 409.
 */
import { ValidationError } from '@polymodal/core/errors';
import type { ToolDeps } from '@polymodal/mcp-common';
import { defineTool } from '@polymodal/mcp-common';
import { z } from 'zod';
import { jobIdSchema, meetingToolError, readJob } from './meeting-tool-deps.js';

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const updateMeetingInput = {
  jobId: jobIdSchema,
  title: z.string().trim().min(1).max(200).optional(),
  speakerNames: z
    .record(z.string().min(1), z.string().trim().min(1).max(100))
    .optional()
    .describe('Speaker id (S1) → name.'),
};

// Terse (issue 14): status and title pass as further properties.
const updateMeetingOutput = z.looseObject({
  jobId: z.string(),
  speakerNames: z.record(z.string(), z.string()),
});

export const updateMeetingTool = defineTool({
  name: 'update_meeting',
  title: 'Rename a meeting or its speakers',
  description:
    'Sets a meeting title and/or speaker names (ids from the transcript). Free; names show in results ' +
    'and exports.',
  inputSchema: updateMeetingInput,
  outputSchema: updateMeetingOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  handler: (deps: ToolDeps) => async (args, extra) => {
    try {
      if (args.title === undefined && args.speakerNames === undefined) {
        throw new ValidationError('give a title and/or speakerNames to change');
      }
      if (args.speakerNames !== undefined) {
        if (Object.keys(args.speakerNames).length === 0) {
          throw new ValidationError('speakerNames is empty; map at least one speaker id to a name');
        }
        const job = await readJob(deps, args.jobId, extra.signal);
        const known = [...new Set((job.transcript ?? []).map((segment) => segment.speakerId))].sort();
        if (known.length === 0) {
          throw new ValidationError(
            `job ${args.jobId} has no transcript yet (status ${job.status}); speakers can be named once the ` +
              'transcript exists (TRANSCRIPT_READY or later).',
          );
        }
        const unknown = Object.keys(args.speakerNames).filter((id) => !known.includes(id));
        if (unknown.length > 0) {
          throw new ValidationError(
            `unknown speaker id(s) ${unknown.join(', ')}; the transcript of job ${args.jobId} has ${known.join(', ')}`,
            unknown.map((id) => ({
              path: `speakerNames.${id}`,
              message: 'not a speaker of this transcript',
            })),
          );
        }
      }
      const updated = await deps.platform.client.meeting.update(
        args.jobId,
        {
          ...(args.title !== undefined ? { title: args.title } : {}),
          ...(args.speakerNames !== undefined ? { speakerNames: args.speakerNames } : {}),
        },
        { signal: extra.signal, deadline: Date.now() + deps.toolDeadlineSeconds * 1000 },
      );
      const speakerNames = updated.speakerNames ?? {};
      const names = Object.entries(speakerNames)
        .map(([id, name]) => `${id}=${name}`)
        .join(', ');
      return {
        content: [
          {
            type: 'text',
            text: `Updated meeting job ${updated.id}: title "${updated.title ?? ''}"${names ? `; speakers ${names}` : ''}.`,
          },
        ],
        structuredContent: {
          jobId: updated.id,
          status: updated.status,
          title: updated.title ?? null,
          speakerNames,
        },
      };
    } catch (error) {
      return meetingToolError(error, deps, { jobId: args.jobId });
    }
  },
});
