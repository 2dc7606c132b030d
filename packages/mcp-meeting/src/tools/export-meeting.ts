/**
 * export_meeting: writes a transcript, translation or summary into the output directory (atomically) and
 * returns the saved path and a resource_link — never the file's bytes inside the result.
 */
import type { MeetingJob } from '@polymodal/core';
import { ValidationError } from '@polymodal/core/errors';
import type { ToolDeps } from '@polymodal/mcp-common';
import { defineTool, outputLink } from '@polymodal/mcp-common';
import { z } from 'zod';
import {
  EXPORT_MIME_TYPES,
  type ExportFormat,
  renderSummaryMarkdown,
  renderTranscript,
} from '../presenters/index.js';
import { jobIdSchema, meetingToolError, readJob } from './meeting-tool-deps.js';

export type ExportWhat = 'transcript' | 'translation' | 'summary';

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const exportMeetingInput = {
  jobId: jobIdSchema,
  what: z.enum(['transcript', 'translation', 'summary']),
  format: z.enum(['srt', 'vtt', 'md']).describe('summary: md only.'),
  fileName: z
    .string()
    .trim()
    .min(1)
    .max(120)
    .optional()
    .describe('No directories; default <title>-<what>.<format>.'),
};

// Terse (issue 14): what and format (as asked) and mimeType pass as further properties.
const exportMeetingOutput = z.looseObject({ jobId: z.string(), path: z.string(), bytes: z.number() });

export const exportMeetingTool = defineTool({
  name: 'export_meeting',
  title: 'Export a meeting to a file',
  description:
    'Saves a transcript or translation (srt, vtt, md) or the summary (md) into the output directory ' +
    '(replacing a same-named file). Free.',
  inputSchema: exportMeetingInput,
  outputSchema: exportMeetingOutput,
  annotations: {
    readOnlyHint: false,
    // A file of the same name in the output directory is replaced.
    destructiveHint: true,
    idempotentHint: true,
    // It reads the job from the platform before writing.
    openWorldHint: true,
  },
  handler: (deps: ToolDeps) => async (args, extra) => {
    try {
      checkExport(args.what, args.format);
      const job = await readJob(deps, args.jobId, extra.signal);
      const text = renderExport(job, args.what, args.format);
      const name = exportFileName(job, args.what, args.format, args.fileName);
      const savedPath = await deps.platform.files.writeOutput(name, text);
      const bytes = Buffer.byteLength(text, 'utf8');
      const mimeType = EXPORT_MIME_TYPES[args.format];
      deps.platform.log.info(`exported ${args.what} of meeting job ${job.id}`, { path: savedPath });
      return {
        content: [
          {
            type: 'text',
            text: `Saved the ${args.what} of meeting job ${job.id} (${bytes} bytes) to ${savedPath}`,
          },
          outputLink(savedPath, {
            mimeType,
            description: `${args.what} of meeting ${job.title ?? job.id}`,
            size: bytes,
          }),
        ],
        structuredContent: {
          jobId: job.id,
          what: args.what,
          format: args.format,
          path: savedPath,
          bytes,
          mimeType,
        },
      };
    } catch (error) {
      return meetingToolError(error, deps, { jobId: args.jobId });
    }
  },
});

/** The file export_meeting writes (and the meeting viewer downloads). */
export function renderExport(job: MeetingJob, what: ExportWhat, format: ExportFormat): string {
  const title = job.title?.trim() || `Meeting ${job.id}`;
  if (what === 'summary') {
    if (!job.summary) throw notYet(job, 'summary');
    return renderSummaryMarkdown(job);
  }
  const segments = what === 'transcript' ? job.transcript : job.translatedTranscript;
  if (!segments) throw notYet(job, what);
  return renderTranscript(job, segments, {
    format,
    heading: `${title} — ${what === 'transcript' ? 'transcript' : 'translation'}`,
  });
}

/** A summary exports as Markdown only. */
export function checkExport(what: ExportWhat, format: ExportFormat): void {
  if (what === 'summary' && format !== 'md') {
    throw new ValidationError(`a summary exports as md only (got ${format}); use format "md"`);
  }
}

function notYet(job: MeetingJob, what: ExportWhat): ValidationError {
  return new ValidationError(
    `job ${job.id} has no ${what} yet (status ${job.status}); wait with get_meeting until it is available`,
  );
}

/** A single safe file name: no directories, no dots-only names, the right extension. */
export function exportFileName(
  job: MeetingJob,
  what: ExportWhat,
  format: ExportFormat,
  requested?: string,
): string {
  const extension = `.${format}`;
  const base = requested
    ? sanitize(
        requested.toLowerCase().endsWith(extension) ? requested.slice(0, -extension.length) : requested,
      )
    : `${sanitize(job.title ?? '') || sanitize(job.id) || 'meeting'}-${what}`;
  return `${base || `meeting-${what}`}${extension}`;
}

function sanitize(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/[/\\:*?"<>|\u0000-\u001f]+/g, '-')
    .replace(/\s+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 100);
}
