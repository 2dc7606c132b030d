/**
 * The platform's job actions (cancel, retry, resummarize, retranslate) share one flow: the action is
 * accepted at once and runs asynchronously, so the tool reads the job after it (no sooner than the spec's
 * 5 s after the last read) or waits up to waitSeconds, and says how to follow it with get_meeting.
 */
import { isMeetingTerminal, type MeetingJob, type MeetingLanguage } from '@polymodal/core';
import {
  createToolDeadline,
  jobOutputSchema,
  type PresentedJob,
  respondWithJob,
  type WaitExtra,
} from '@polymodal/mcp-common';
import { presentMeetingJob } from './job-result.js';
import { type MeetingToolDeps, meetingJobView, meetingToolError } from './meeting-tool-deps.js';

export type JobAction = 'cancel' | 'retry' | 'resummarize' | 'retranslate';

/** The shared long-job schema: `action`, the job's details and summary are further (allowed) fields. */
export const jobActionOutputSchema = jobOutputSchema;

export const JOB_ACTION_ANNOTATIONS = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
} as const;

export async function runJobAction(
  deps: MeetingToolDeps,
  options: {
    action: JobAction;
    jobId: string;
    targetLanguage?: MeetingLanguage;
    waitSeconds: number;
    extra: WaitExtra;
  },
) {
  const { action, jobId, extra } = options;
  const meeting = deps.context.polymodal.meeting;
  const deadline = createToolDeadline(extra.signal, deps.toolDeadlineSeconds);
  try {
    const signalOptions = { signal: extra.signal, deadline: deadline.at };
    if (action === 'cancel') await meeting.cancel(jobId, signalOptions);
    else if (action === 'retry') await meeting.retry(jobId, signalOptions);
    else if (action === 'resummarize') await meeting.resummarize(jobId, signalOptions);
    else
      await meeting.retranslate(
        jobId,
        { targetLanguage: options.targetLanguage as MeetingLanguage },
        signalOptions,
      );
    deps.context.log.info(`${action} accepted for meeting job ${jobId}`);

    // The job was stopped before a restart; on the real platform the restart is dispatched
    // asynchronously, so a first read may still show the old final state. While waiting, only a final
    // state seen after the job moved (or on a later read) counts as the action's outcome.
    let reads = 0;
    let moved = false;
    const settled = (job: MeetingJob) => {
      reads += 1;
      if (!isMeetingTerminal(job.status)) moved = true;
      return isMeetingTerminal(job.status) && (action === 'cancel' || moved || reads > 1);
    };
    return await respondWithJob<MeetingJob>({
      extra,
      jobId,
      waitSeconds: options.waitSeconds,
      deadline: deadline.at,
      poll: (request) => meeting.poll(jobId, { ...request, until: settled }),
      view: meetingJobView,
      waitTool: 'get_meeting',
      present: (job, done): PresentedJob => presentMeetingJob(job, done),
      lead: `${capitalize(action)} accepted.`,
      structured: { action },
    });
  } catch (error) {
    return meetingToolError(error, deps, { jobId });
  } finally {
    deadline.dispose();
  }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
