/**
 * summarize_meeting: upload a local recording, start the job (or resume the one already recorded for the
 * same file and options), and wait up to `waitSeconds` for transcript, translation and summary.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  MEETING_LANGUAGES,
  MeetingAsrEngine,
  type MeetingClient,
  type MeetingJob,
  MeetingLanguage,
  SubmissionInProgressError,
} from '@polymodal/core';
import {
  BudgetExceededError,
  budgetToolError,
  createProgressReporter,
  createToolDeadline,
  createWaitSecondsSchema,
  estimateMeetingCredits,
  jobStatusShape,
  LOCAL_OR_HTTPS,
  resolveToolInputs,
  respondWithJob,
} from '@polymodal/mcp-common';
import { z } from 'zod';
import { countsSchema, jobDetailsShape, summarySchema } from '../presenters/index.js';
import { presentMeetingJob } from './job-result.js';
import { type MeetingToolDeps, meetingJobView, meetingToolError } from './meeting-tool-deps.js';

const DESCRIPTION = `Transcribes, translates and summarizes a local meeting recording (MP4, MOV, AVI, MKV, MP3, M4A or WAV, up to 2 hours) on the Polymodal platform: speaker-separated transcript, translation into targetLanguage, and a structured summary (overview, topics, decisions, action items with owners and due dates, open questions), every item pointing at transcript segment ids.

Cost: 4 credits per started minute of recording, with a minimum set by the platform; charged once, only when the job completes (failed or cancelled jobs cost nothing). When the server has a daily credit budget, a call that would exceed it is refused before anything is uploaded (list_jobs shows what is left).
Time: processing usually takes a fraction of the recording's length, plus the upload. This call waits at most waitSeconds (default 40, max 50); if the job is still running it returns done=false with the jobId — then call get_meeting with that jobId and waitSeconds up to 50 until done=true. A long upload goes on after the call answers (done=false, status UPLOADING, no jobId yet): call summarize_meeting again with the same arguments to follow it. Calling it again with the same file and options never pays twice: it joins the upload in progress or resumes the recorded job (resumed=true); force=true starts a new paid job.
Next: get_meeting for the transcript (paged) or translation, export_meeting to save srt/vtt/md files, update_meeting to name speakers.
A local file must be inside an allowed directory (POLYMODAL_ALLOWED_DIRS or the client's roots); an https:// URL is downloaded first.`;

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const summarizeMeetingInput = {
  path: z.string().min(1).describe(`The recording: ${LOCAL_OR_HTTPS}.`),
  sourceLanguage: z
    .enum(['auto', ...MEETING_LANGUAGES])
    .default('auto')
    .describe('Spoken language, or "auto" to detect it.'),
  targetLanguage: MeetingLanguage.default('en').describe('Language of the translation and the summary.'),
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
};

const summarizeMeetingOutput = {
  ...jobStatusShape,
  resumed: z.boolean().describe('True when an earlier submission of the same file and options was resumed.'),
  ...jobDetailsShape,
  counts: countsSchema.optional(),
  summary: summarySchema.optional(),
};

export function registerSummarizeMeeting(server: McpServer, deps: MeetingToolDeps): void {
  server.registerTool(
    'summarize_meeting',
    {
      title: 'Summarize a meeting recording',
      description: DESCRIPTION,
      inputSchema: summarizeMeetingInput,
      outputSchema: summarizeMeetingOutput,
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
      const deadline = createToolDeadline(extra.signal, deps.toolDeadlineSeconds);
      const meeting = deps.context.polymodal.meeting;
      const inputs = resolveToolInputs(deps, deadline.signal);
      let uploadPercent = 0;
      try {
        await deps.roots.ready();
        let lastUploadReport = 0;
        const submitted = await meeting.submit({
          file: await inputs.resolve(args.path, { field: 'path', maxBytes: () => uploadLimit(meeting) }),
          sourceLanguage: args.sourceLanguage,
          targetLanguage: args.targetLanguage,
          asrEngine: args.asrEngine,
          noiseReduction: args.noiseReduction,
          minSpeakers: args.minSpeakers,
          maxSpeakers: args.maxSpeakers,
          title: args.title,
          force: args.force,
          // The daily credit budget is checked only when new paid work starts (a resumed or joined job
          // costs nothing new), after the recording's length is read and before anything is sent.
          admit: (admission) =>
            deps.context.budget.admit({
              ...admission,
              estimate: estimateMeetingCredits(admission.recording.durationSeconds),
              what: 'this recording',
            }),
          // The upload is not cut at the call's deadline (it has no job to come back to yet): the call
          // answers then, and the upload goes on for the next identical call to join.
          signal: extra.signal,
          deadline: deadline.at,
          onUploadProgress: (sent: number, total: number) => {
            // Upload progress keeps hosts' progress-reset timeouts alive during a long upload. It stays
            // within 0..1 so the job's own 0..100 can follow without going backwards, and is sent at most
            // once a second (plus the last one) so a fast upload does not flood the client.
            const percent = total > 0 ? Math.floor((sent / total) * 100) : 0;
            const now = Date.now();
            if (percent === uploadPercent || (percent < 100 && now - lastUploadReport < 1000)) return;
            uploadPercent = percent;
            lastUploadReport = now;
            void reporter.report(percent / 100, `UPLOADING ${percent}%`);
          },
        });
        deps.context.log.info(
          submitted.resumed ? `resumed meeting job ${submitted.id}` : `submitted meeting job ${submitted.id}`,
        );
        const notes = [
          submitted.resumed ? 'Resumed the job already submitted for this file (no new charge).' : '',
          submitted.joined ? 'Joined the identical submission already in progress (no new charge).' : '',
          submitted.warning ?? '',
        ].filter(Boolean);
        return await respondWithJob<MeetingJob>({
          extra,
          reporter,
          jobId: submitted.id,
          waitSeconds: args.waitSeconds,
          deadline: deadline.at,
          poll: (request) => meeting.poll(submitted.id, request),
          view: meetingJobView,
          waitTool: 'get_meeting',
          known: { status: submitted.status },
          present: presentMeetingJob,
          lead: notes.length > 0 ? notes.join(' ') : undefined,
          structured: { resumed: submitted.resumed },
        });
      } catch (error) {
        if (SubmissionInProgressError.isInstance(error)) return uploadInProgress(uploadPercent);
        if (BudgetExceededError.isInstance(error)) return budgetToolError(error, deps.context.secrets);
        return meetingToolError(inputs.explain(error), deps, { path: args.path });
      } finally {
        deadline.dispose();
        // A download is removed now; an upload still running reads it through its open descriptor.
        await inputs.release();
      }
    },
  );
}

/**
 * The cap of a recording downloaded from a URL: the service's `maxUploadBytes` (a free read), or, when the
 * service does not say, 2 GiB (the largest file this client streams anyway); the client checks the
 * service's limit again before uploading, as for a local file.
 */
async function uploadLimit(meeting: MeetingClient): Promise<number> {
  const fallback = 2 * 1024 * 1024 * 1024;
  const list = await meeting.list().catch(() => undefined);
  return list?.maxUploadBytes ?? fallback;
}

/** The answer while the recording is still being uploaded (here, or by another process) at the deadline. */
function uploadInProgress(percent: number) {
  const next = 'call summarize_meeting again with the same arguments to follow the upload and the job';
  return {
    content: [
      {
        type: 'text' as const,
        text:
          `The recording is still being uploaded${percent > 0 ? ` (${percent}%)` : ''}; the upload goes on and ` +
          `nothing is sent twice. Next: ${next}.`,
      },
    ],
    structuredContent: { jobId: '', status: 'UPLOADING', progress: 0, done: false, next, resumed: false },
  };
}
