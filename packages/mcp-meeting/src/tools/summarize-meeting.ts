/**
 * summarize_meeting: upload a local recording, start the job (or resume the one already recorded for the
 * same file and options), and wait up to `waitSeconds` for transcript, translation and summary.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { MEETING_LANGUAGES, MeetingAsrEngine, MeetingLanguage } from '@polymodal/core';
import {
  createProgressReporter,
  createWaitSecondsSchema,
  jobStatusShape,
  waitForJob,
} from '@polymodal/mcp-common';
import { z } from 'zod';
import { countsSchema, jobDetailsShape, summarySchema } from '../presenters/index.js';
import { jobOutcome, jobOutcomeText } from './job-result.js';
import {
  describeJob,
  isDone,
  type MeetingToolDeps,
  meetingToolError,
  recordStatus,
} from './meeting-tool-deps.js';

const DESCRIPTION = `Transcribes, translates and summarizes a local meeting recording (MP4, MOV, AVI, MKV, MP3, M4A or WAV, up to 2 hours) on the Polymodal platform: speaker-separated transcript, translation into targetLanguage, and a structured summary (overview, topics, decisions, action items with owners and due dates, open questions), every item pointing at transcript segment ids.

Cost: 4 credits per started minute of recording, with a minimum set by the platform; charged once, only when the job completes (failed or cancelled jobs cost nothing).
Time: processing usually takes a fraction of the recording's length, plus the upload. This call waits at most waitSeconds (default 40, max 50); if the job is still running it returns done=false with the jobId — then call get_meeting with that jobId and waitSeconds up to 50 until done=true. Never call summarize_meeting again to "check": calling it again with the same file and options resumes the recorded job (resumed=true) instead of paying twice; force=true starts a new paid job.
Next: get_meeting for the transcript (paged) or translation, export_meeting to save srt/vtt/md files, update_meeting to name speakers.
The file must be inside an allowed directory (POLYMODAL_ALLOWED_DIRS or the client's roots).`;

export function registerSummarizeMeeting(server: McpServer, deps: MeetingToolDeps): void {
  server.registerTool(
    'summarize_meeting',
    {
      title: 'Summarize a meeting recording',
      description: DESCRIPTION,
      inputSchema: {
        path: z
          .string()
          .min(1)
          .describe('Path of the local recording; absolute, or relative to the first allowed directory.'),
        sourceLanguage: z
          .enum(['auto', ...MEETING_LANGUAGES])
          .default('auto')
          .describe('Spoken language, or "auto" to detect it.'),
        targetLanguage: MeetingLanguage.default('en').describe(
          'Language of the translation and the summary.',
        ),
        asrEngine: MeetingAsrEngine.optional().describe(
          'Speech recognition engine (platform default: engineone_asr).',
        ),
        noiseReduction: z
          .boolean()
          .optional()
          .describe('Extract vocals and reduce background noise first (platform default: true).'),
        minSpeakers: z
          .number()
          .int()
          .min(0)
          .max(30)
          .optional()
          .describe('Fewest speakers expected (0 = automatic).'),
        maxSpeakers: z
          .number()
          .int()
          .min(0)
          .max(30)
          .optional()
          .describe('Most speakers expected (0 = automatic); when nonzero, minSpeakers must not exceed it.'),
        title: z.string().trim().min(1).max(200).optional().describe('Title to give the recording.'),
        waitSeconds: createWaitSecondsSchema(40),
        force: z
          .boolean()
          .default(false)
          .describe('Start a new (paid) job even if this file was already submitted with the same options.'),
      },
      outputSchema: {
        ...jobStatusShape,
        resumed: z
          .boolean()
          .describe('True when an earlier submission of the same file and options was resumed.'),
        ...jobDetailsShape,
        counts: countsSchema.optional(),
        summary: summarySchema.optional(),
      },
      annotations: {
        title: 'Summarize a meeting recording',
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    async (args, extra) => {
      const reporter = createProgressReporter(extra);
      try {
        await deps.roots.ready();
        let lastUploadPercent = -1;
        let lastUploadReport = 0;
        const submitted = await deps.context.polymodal.meeting.submit({
          file: args.path,
          sourceLanguage: args.sourceLanguage,
          targetLanguage: args.targetLanguage,
          asrEngine: args.asrEngine,
          noiseReduction: args.noiseReduction,
          minSpeakers: args.minSpeakers,
          maxSpeakers: args.maxSpeakers,
          title: args.title,
          force: args.force,
          signal: extra.signal,
          onUploadProgress: (sent: number, total: number) => {
            // Upload progress exists to keep hosts' progress-reset timeouts alive during a long upload. It
            // stays within 0..1 so the job's own 0..100 can follow without going backwards, and is sent at
            // most once a second (plus the last one) so a fast upload does not flood the client.
            const percent = total > 0 ? Math.floor((sent / total) * 100) : 0;
            const now = Date.now();
            if (percent === lastUploadPercent || (percent < 100 && now - lastUploadReport < 1000)) return;
            lastUploadPercent = percent;
            lastUploadReport = now;
            void reporter.report(percent / 100, `UPLOADING ${percent}%`);
          },
        });
        deps.context.log.info(
          submitted.resumed ? `resumed meeting job ${submitted.id}` : `submitted meeting job ${submitted.id}`,
        );
        const { done, job } = await waitForJob({
          extra,
          reporter,
          waitSeconds: args.waitSeconds,
          intervalMs: deps.pollIntervalMs,
          poll: (signal) => deps.context.polymodal.meeting.retrieve(submitted.id, { signal }),
          isDone,
          describe: describeJob,
        });
        await recordStatus(deps, job);
        const notes = [
          submitted.resumed ? 'Resumed the job already submitted for this file (no new charge).' : '',
          submitted.warning ?? '',
        ].filter(Boolean);
        const lead = notes.length > 0 ? notes.join(' ') : undefined;
        return {
          content: [{ type: 'text', text: jobOutcomeText(job, done, lead) }],
          structuredContent: { ...jobOutcome(job, done), resumed: submitted.resumed },
        };
      } catch (error) {
        return meetingToolError(error, deps, { path: args.path });
      }
    },
  );
}
