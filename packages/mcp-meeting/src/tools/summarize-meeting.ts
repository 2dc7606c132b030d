/**
 * summarize_meeting: upload a local recording, start the job (or resume the one already recorded for the
 * same file and options), and wait up to `waitSeconds` for transcript, translation and summary.
 */
import type { MeetingClient, MeetingJob } from '@polymodal/core';
import { MEETING_LANGUAGES, MeetingAsrEngine, MeetingLanguage } from '@polymodal/core/constants';
import { SubmissionInProgressError } from '@polymodal/core/errors';
import type { ToolDeps } from '@polymodal/mcp-common';
import {
  createProgressReporter,
  createToolDeadline,
  createWaitSecondsSchema,
  defineTool,
  estimateMeetingCredits,
  jobOutputSchema,
  resolveToolInputs,
  respondWithJob,
} from '@polymodal/mcp-common';
import { z } from 'zod';
import { MEETING_VIEWER_VIEW } from '../views/meeting-viewer-view.js';
import { presentMeetingJob } from './job-result.js';
import { meetingJobView, meetingToolError } from './meeting-tool-deps.js';

// Short on purpose (issue 14): hosts send it to the model on every turn. The detail is in the README's Tools.
const DESCRIPTION = `Transcribes, translates and summarizes a meeting recording (max 2 h). 4 credits per started minute, charged on success; repeat calls resume, never pay twice. If done=false: get_meeting. Next: export_meeting.`;

// Schemas built once per process: every McpServer (one per HTTP request or session) registers these same objects.
const summarizeMeetingInput = {
  path: z.string().min(1).describe('Local path or https:// URL.'),
  sourceLanguage: z.enum(['auto', ...MEETING_LANGUAGES]).default('auto'),
  targetLanguage: MeetingLanguage.default('en').describe("Also the summary's."),
  asrEngine: MeetingAsrEngine.optional(),
  noiseReduction: z.boolean().optional(),
  minSpeakers: z.number().int().min(0).max(30).optional(),
  maxSpeakers: z.number().int().min(0).max(30).optional(),
  title: z.string().trim().min(1).max(200).optional(),
  waitSeconds: createWaitSecondsSchema(40),
  force: z.boolean().default(false).describe('Pay for a new job.'),
};

export const summarizeMeetingTool = defineTool({
  name: 'summarize_meeting',
  title: 'Summarize a meeting recording',
  description: DESCRIPTION,
  inputSchema: summarizeMeetingInput,
  outputSchema: jobOutputSchema,
  asTask: true,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  view: MEETING_VIEWER_VIEW,
  handler: (deps: ToolDeps) => async (args, extra) => {
    const reporter = createProgressReporter(extra);
    const deadline = createToolDeadline(extra.signal, deps.toolDeadlineSeconds);
    const meeting = deps.platform.client.meeting;
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
          deps.platform.budget.admit({
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
      deps.platform.log.info(
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
      return meetingToolError(inputs.explain(error), deps, { path: args.path });
    } finally {
      deadline.dispose();
      // A download is removed now; an upload still running reads it through its open descriptor.
      await inputs.release();
    }
  },
});

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
