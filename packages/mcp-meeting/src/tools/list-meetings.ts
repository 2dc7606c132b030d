/**
 * list_meetings: the account's newest recordings on the platform, with the upload limit and pricing.
 */
import { MEETING_LIST_LIMIT } from '@polymodal/core/constants';
import type { ToolDeps } from '@polymodal/mcp-common';
import { defineTool } from '@polymodal/mcp-common';
import { z } from 'zod';
import { ANNOTATIONS_READ_ONLY, formatBytes, meetingToolError, minimumCredits } from './meeting-tool-deps.js';

const DESCRIPTION = `Lists this account's newest meeting recordings (up to ${MEETING_LIST_LIMIT}: id, title, status), the upload limit and pricing. Free. list_jobs shows jobs started here; get_meeting reads one.`;

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const listMeetingsInput = {};

// Terse (issue 14): each header's further fields, the count and the pricing pass as further properties.
const listMeetingsOutput = z.looseObject({
  meetings: z.array(z.looseObject({ id: z.string(), status: z.string().nullable() })),
  maxUploadBytes: z.number().nullable(),
});

export const listMeetingsTool = defineTool({
  name: 'list_meetings',
  title: 'List meeting recordings',
  description: DESCRIPTION,
  inputSchema: listMeetingsInput,
  outputSchema: listMeetingsOutput,
  annotations: ANNOTATIONS_READ_ONLY,
  handler: (deps: ToolDeps) => async (_args, extra) => {
    try {
      const list = await deps.platform.client.meeting.list({
        signal: extra.signal,
        deadline: Date.now() + deps.toolDeadlineSeconds * 1000,
      });
      const meetings = list.jobs.map((header) => ({
        ...header,
        title: header.title ?? null,
        status: header.status ?? null,
      }));
      const pricing =
        typeof list.pricing === 'object' && list.pricing !== null && !Array.isArray(list.pricing)
          ? (list.pricing as Record<string, unknown>)
          : null;
      const maxUploadBytes = list.maxUploadBytes ?? null;
      const minimum = minimumCredits(pricing);
      const lines = [
        meetings.length === 0
          ? 'No meeting recordings on this account yet.'
          : `${meetings.length} meeting recording(s), newest first:`,
        ...meetings.map(
          (meeting) => `- ${meeting.id} ${meeting.status ?? ''}${meeting.title ? ` "${meeting.title}"` : ''}`,
        ),
        `Upload limit: ${maxUploadBytes === null ? 'not reported' : formatBytes(maxUploadBytes)}. ` +
          `Pricing: 4 credits per started minute${minimum !== undefined ? `, minimum ${minimum} credits` : ''}.`,
      ];
      return {
        content: [{ type: 'text', text: lines.join('\n') }],
        structuredContent: { meetings, count: meetings.length, maxUploadBytes, pricing },
      };
    } catch (error) {
      return meetingToolError(error, deps);
    }
  },
});
