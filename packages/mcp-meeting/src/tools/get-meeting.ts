/**
 * get_meeting: status, summary and one page of transcript or translation of a job; optionally waits for
 * a running job (the second half of the long-job contract).
 */
import type { MeetingJob } from '@polymodal/core';
import { MEETING_SERVICE } from '@polymodal/core/constants';
import { ValidationError } from '@polymodal/core/errors';
import type { ToolDeps } from '@polymodal/mcp-common';
import {
  createToolDeadline,
  createWaitSecondsSchema,
  defineTool,
  jobOutputSchema,
  keepWaitingHint,
  respondWithJob,
} from '@polymodal/mcp-common';
import { z } from 'zod';
import {
  countItems,
  jobDetails,
  pageSegments,
  presentSummary,
  renderSegmentsText,
  renderSummaryText,
  type SegmentPageOutput,
  type SegmentSelection,
  segmentPageOutputSchema,
  summaryOutputSchema,
} from '../presenters/index.js';
import { MEETING_VIEWER_VIEW } from '../views/meeting-viewer-view.js';
import { nextAfterStop } from './job-result.js';
import { ANNOTATIONS_READ_ONLY, jobIdSchema, meetingJobView, meetingToolError } from './meeting-tool-deps.js';

export const MAX_SEGMENTS_CAP = 200;

// Short on purpose (issue 14): hosts send it to the model on every turn. The detail is in the README's Tools.
const DESCRIPTION = `Reads a meeting job: status, credits, summary, one page of transcript/translation (next page: segmentRange.from=nextSegment). Free. waitSeconds (default 0, since this tool also pages through finished jobs) waits for a running job; repeat while done=false.`;

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const getMeetingInput = {
  jobId: jobIdSchema,
  include: z
    .array(z.enum(['summary', 'transcript', 'translation']))
    .optional()
    .describe('Default summary, transcript.'),
  segmentRange: z
    .object({
      from: z.number().int().min(1),
      to: z.number().int().min(1).optional(),
    })
    .optional()
    .describe('1-based, inclusive.'),
  timeRange: z
    .object({
      startSeconds: z.number().min(0),
      endSeconds: z.number().min(0).optional(),
    })
    .optional()
    .describe('Segments overlapping it.'),
  maxSegments: z.number().int().min(1).max(MAX_SEGMENTS_CAP).default(50),
  waitSeconds: createWaitSecondsSchema(0),
};

// The shared long-job core with the parts an agent reads; the job's details and counts are further fields.
const getMeetingOutput = jobOutputSchema.extend({
  summary: summaryOutputSchema.optional(),
  transcript: segmentPageOutputSchema.optional(),
  translation: segmentPageOutputSchema.optional(),
});

export const getMeetingTool = defineTool({
  name: 'get_meeting',
  title: 'Get a meeting job',
  description: DESCRIPTION,
  inputSchema: getMeetingInput,
  outputSchema: getMeetingOutput,
  asTask: true,
  annotations: ANNOTATIONS_READ_ONLY,
  view: MEETING_VIEWER_VIEW,
  handler: (deps: ToolDeps) => async (args, extra) => {
    const deadline = createToolDeadline(extra.signal, deps.toolDeadlineSeconds);
    try {
      const selection = checkSelection(args);
      const include = new Set(args.include ?? ['summary', 'transcript']);
      return await respondWithJob<MeetingJob>({
        extra,
        jobId: args.jobId,
        waitSeconds: args.waitSeconds,
        deadline: deadline.at,
        poll: (request) => deps.platform.client.meeting.poll(args.jobId, request),
        view: meetingJobView,
        waitTool: 'get_meeting',
        // A job this installation saw finish is not answered as UNKNOWN when it cannot be read right now.
        lastKnown: async () => {
          const entry = await deps.platform.ledger.findById(MEETING_SERVICE, args.jobId);
          return entry ? { status: entry.lastStatus } : undefined;
        },
        present: (job, done) => presentPage(job, done, include, selection),
      });
    } catch (error) {
      return meetingToolError(error, deps, { jobId: args.jobId });
    } finally {
      deadline.dispose();
    }
  },
});

/** The job with the requested parts: summary, and one page of transcript and/or translation. */
function presentPage(job: MeetingJob, done: boolean, include: Set<string>, selection: SegmentSelection) {
  const summary = include.has('summary') ? presentSummary(job) : undefined;
  const transcript =
    include.has('transcript') && job.transcript ? pageSegments(job, job.transcript, selection) : undefined;
  const translation =
    include.has('translation') && job.translatedTranscript
      ? pageSegments(job, job.translatedTranscript, selection)
      : undefined;
  const next = chooseNext(job, done, transcript ?? translation);
  return {
    text: renderText(job, done, { include, summary, transcript, translation, next }),
    next,
    structured: {
      ...jobDetails(job),
      speakerNames: job.speakerNames ?? {},
      counts: countItems(job),
      ...(summary ? { summary } : {}),
      ...(transcript ? { transcript } : {}),
      ...(translation ? { translation } : {}),
    },
  };
}

function checkSelection(args: {
  segmentRange?: { from: number; to?: number | undefined } | undefined;
  timeRange?: { startSeconds: number; endSeconds?: number | undefined } | undefined;
  maxSegments: number;
}): SegmentSelection {
  if (args.segmentRange && args.timeRange) {
    throw new ValidationError('give segmentRange or timeRange, not both');
  }
  if (args.segmentRange?.to !== undefined && args.segmentRange.to < args.segmentRange.from) {
    throw new ValidationError('segmentRange.to must not be smaller than segmentRange.from');
  }
  if (args.timeRange?.endSeconds !== undefined && args.timeRange.endSeconds < args.timeRange.startSeconds) {
    throw new ValidationError('timeRange.endSeconds must not be smaller than timeRange.startSeconds');
  }
  return { segmentRange: args.segmentRange, timeRange: args.timeRange, maxSegments: args.maxSegments };
}

function chooseNext(job: MeetingJob, done: boolean, page: SegmentPageOutput | undefined): string {
  if (!done) return keepWaitingHint('get_meeting', job.id);
  if (page?.nextSegment) {
    return `call get_meeting with jobId=${job.id} and segmentRange.from=${page.nextSegment} for the next page of segments`;
  }
  return nextAfterStop(job);
}

function renderText(
  job: MeetingJob,
  done: boolean,
  parts: {
    include: Set<string>;
    summary: ReturnType<typeof presentSummary>;
    transcript: SegmentPageOutput | undefined;
    translation: SegmentPageOutput | undefined;
    next: string;
  },
): string {
  const title = job.title ? ` "${job.title}"` : '';
  const lines = [
    `Meeting job ${job.id}${title}: ${job.status} (${Math.round(job.progress)}%)${done ? '' : ', still running'}.`,
  ];
  if (job.errorMessage) lines.push(`Error: ${job.errorMessage}`);
  if (job.warning) lines.push(`Warning: ${job.warning}`);
  if (job.credits !== null && job.credits !== undefined) {
    lines.push(`Credits: ${job.credits}${job.creditsCharged ? ' (charged)' : ' (not charged)'}.`);
  }
  if (parts.summary) lines.push(renderSummaryText(parts.summary));
  else if (parts.include.has('summary')) lines.push('Summary: not available yet.');
  for (const [name, page] of [
    ['Transcript', parts.transcript],
    ['Translation', parts.translation],
  ] as const) {
    if (!parts.include.has(name.toLowerCase())) continue;
    if (!page) {
      lines.push(`${name}: not available yet (status ${job.status}).`);
      continue;
    }
    const shown =
      page.returned > 0
        ? `segments ${page.segments[0]?.index}–${page.segments[page.returned - 1]?.index} of ${page.total}`
        : `no segments in the requested range (of ${page.total})`;
    lines.push(`${name} (${shown}${page.nextSegment ? `, nextSegment=${page.nextSegment}` : ''}):`);
    if (page.returned > 0) lines.push(renderSegmentsText(page));
  }
  lines.push(`Next: ${parts.next}.`);
  return lines.join('\n');
}
