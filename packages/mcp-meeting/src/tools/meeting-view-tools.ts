/**
 * The meeting viewer's own tools (app-only: `_meta.ui.visibility: ["app"]`, offered only to clients that
 * render views, kept from the model by hosts). A long meeting's transcript reaches the view a page at a time
 * instead of in one huge result, and the view's export goes to the host's download instead of a file in
 * the output directory. Both read the job through the job engine (a read less than 5 s old is reused), and
 * like every tool they see only the caller's own jobs (over HTTP, the tenant's). A third plays the recording
 * from a segment, for clients on this machine only (see `meetingViewRecordingTool`).
 */
import path from 'node:path';
import type { MeetingJob, TranscriptSegment } from '@polymodal/core';
import { ValidationError } from '@polymodal/core/errors';
import { readMediaAsDataUrl } from '@polymodal/core/media';
import type { ToolDeps } from '@polymodal/mcp-common';
import { defineTool, MAX_OUTPUT_RESOURCE_BYTES } from '@polymodal/mcp-common';
import { z } from 'zod';
import { EXPORT_MIME_TYPES, pageSegments, speakerLabel } from '../presenters/index.js';
import { checkExport, exportFileName, renderExport } from './export-meeting.js';
import { MAX_SEGMENTS_CAP } from './get-meeting.js';
import {
  ANNOTATIONS_READ_ONLY,
  isDone,
  jobIdSchema,
  meetingToolError,
  readJob,
} from './meeting-tool-deps.js';

const pageInput = {
  jobId: jobIdSchema,
  track: z.enum(['transcript', 'translation']).default('transcript'),
  /** 1-based index of the first segment (of those matching `query`). */
  from: z.number().int().min(1).default(1),
  maxSegments: z.number().int().min(1).max(MAX_SEGMENTS_CAP).default(100),
  query: z.string().trim().max(200).optional(),
};

export const meetingViewPageTool = defineTool({
  name: 'meeting_view_page',
  title: 'Meeting viewer: a page of transcript',
  description:
    "For the meeting viewer: one page of a finished meeting's transcript or translation (optionally only " +
    "segments containing `query`), and on the first page the speakers' talk time and the timeline.",
  inputSchema: pageInput,
  annotations: ANNOTATIONS_READ_ONLY,
  appOnly: true,
  handler: (deps: ToolDeps) => async (args, extra) => {
    try {
      const job = await readJob(deps, args.jobId, extra.signal);
      const segments = (args.track === 'transcript' ? job.transcript : job.translatedTranscript) ?? [];
      // Everything matching (the whole track without a query), then the page: `from` counts among the
      // matching segments, so the view pages through search results as through the whole.
      const matching = pageSegments(job, segments, {
        query: args.query,
        maxSegments: Number.POSITIVE_INFINITY,
      });
      const page = matching.segments.slice(args.from - 1, args.from - 1 + args.maxSegments);
      const nextFrom = args.from - 1 + page.length < matching.matched ? args.from + page.length : null;
      const structured = {
        jobId: job.id,
        status: job.status,
        done: isDone(job),
        track: args.track,
        hasTranslation: (job.translatedTranscript?.length ?? 0) > 0,
        total: matching.total,
        matched: matching.matched,
        from: args.from,
        nextFrom,
        segments: page,
        // Whether meeting_view_recording serves this client (the view offers "play from here" then).
        canPlayRecording: deps.platform.callers !== 'remote',
        ...(args.from === 1 ? talkTime(job, job.transcript ?? []) : {}),
      };
      return {
        content: [
          {
            type: 'text',
            text:
              `Segments ${args.from}–${args.from + page.length - 1} of ${structured.matched}` +
              `${args.query ? ` matching "${args.query}"` : ''} (${args.track} of meeting job ${job.id}).`,
          },
        ],
        structuredContent: structured,
      };
    } catch (error) {
      return meetingToolError(error, deps, { jobId: args.jobId });
    }
  },
});

/**
 * Each speaker's talk time and share of it, and the timeline as runs of one speaker: `[start, end, speaker's
 * position in speakers]`, consecutive segments of one speaker merged, so a two-hour meeting stays small.
 */
function talkTime(job: MeetingJob, segments: readonly TranscriptSegment[]) {
  const seconds = new Map<string, number>();
  for (const segment of segments) {
    seconds.set(
      segment.speakerId,
      (seconds.get(segment.speakerId) ?? 0) + Math.max(0, segment.end - segment.start),
    );
  }
  const total = [...seconds.values()].reduce((sum, value) => sum + value, 0);
  const speakers = [...seconds.entries()].map(([id, spoken]) => ({
    id,
    name: speakerLabel(job, id) ?? id,
    seconds: Math.round(spoken * 10) / 10,
    share: total > 0 ? spoken / total : 0,
  }));
  const position = new Map(speakers.map((speaker, index) => [speaker.id, index]));
  const timeline: [number, number, number][] = [];
  for (const segment of segments) {
    const speaker = position.get(segment.speakerId) ?? 0;
    const last = timeline.at(-1);
    if (last && last[2] === speaker && segment.start - last[1] < 1) last[1] = Math.max(last[1], segment.end);
    else timeline.push([segment.start, segment.end, speaker]);
  }
  const durationSeconds = segments.reduce((end, segment) => Math.max(end, segment.end), 0);
  return { speakers, timeline, durationSeconds };
}

const exportInput = {
  jobId: jobIdSchema,
  what: z.enum(['transcript', 'translation', 'summary']),
  format: z.enum(['srt', 'vtt', 'md']),
};

export const meetingViewExportTool = defineTool({
  name: 'meeting_view_export',
  title: 'Meeting viewer: a file to download',
  description:
    'For the meeting viewer: the transcript or translation (srt, vtt, md) or the summary (md) as a file ' +
    'the host offers for download. Nothing is written on the server.',
  inputSchema: exportInput,
  annotations: ANNOTATIONS_READ_ONLY,
  appOnly: true,
  handler: (deps: ToolDeps) => async (args, extra) => {
    try {
      checkExport(args.what, args.format);
      const job = await readJob(deps, args.jobId, extra.signal);
      const text = renderExport(job, args.what, args.format);
      const fileName = exportFileName(job, args.what, args.format);
      const mimeType = EXPORT_MIME_TYPES[args.format];
      return {
        // The file itself, as the embedded resource `ui/download-file` takes (the view hands it on as is).
        content: [
          {
            type: 'resource',
            resource: { uri: `polymodal://exports/${encodeURIComponent(fileName)}`, mimeType, text },
          },
        ],
        structuredContent: { jobId: job.id, fileName, mimeType, bytes: Buffer.byteLength(text, 'utf8') },
      };
    } catch (error) {
      return meetingToolError(error, deps, { jobId: args.jobId });
    }
  },
});

const VIDEO_EXTENSIONS = new Set(['.mp4', '.mov', '.m4v', '.mkv', '.webm', '.avi', '.mpeg', '.mpg']);

export const meetingViewRecordingTool = defineTool({
  name: 'meeting_view_recording',
  title: 'Meeting viewer: the recording',
  description:
    'For the meeting viewer: the local recording summarize_meeting was given (WAV or MP3 audio, or video, ' +
    'up to 7 MiB), to play a segment from its start. Clients on this machine only.',
  inputSchema: { path: z.string().min(1).max(4096) },
  annotations: ANNOTATIONS_READ_ONLY,
  appOnly: true,
  handler: (deps: ToolDeps) => async (args) => {
    try {
      // The recording's bytes go back to the client: fine for the person whose machine it is (stdio,
      // loopback HTTP), not for a remote tenant, who may share the server's readable directories with others
      // (reading a file there never needed more than naming it).
      if (deps.platform.callers === 'remote') {
        throw new ValidationError("the recording is played only for clients on the server's machine");
      }
      if (/^https?:/i.test(args.path)) {
        throw new ValidationError('only a local recording can be played here, not a URL');
      }
      // The same checks as any local media sent inline (allowed directory, content by its bytes), and the
      // size one answer may have (a longer recording is not played here).
      const kind = VIDEO_EXTENSIONS.has(path.extname(args.path).toLowerCase()) ? 'video' : 'audio';
      const media = await readMediaAsDataUrl(args.path, {
        kind,
        field: 'path',
        files: deps.platform.files,
        maxBytes: MAX_OUTPUT_RESOURCE_BYTES,
      });
      const blob = media.dataUrl.slice(media.dataUrl.indexOf(',') + 1);
      const name = path.basename(media.realPath);
      return {
        content: [
          {
            type: 'resource',
            resource: {
              uri: `polymodal://recordings/${encodeURIComponent(name)}`,
              mimeType: media.contentType,
              blob,
            },
          },
        ],
        structuredContent: { name, mimeType: media.contentType, bytes: media.size },
      };
    } catch (error) {
      return meetingToolError(error, deps);
    }
  },
});
