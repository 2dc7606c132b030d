/**
 * The platform's job actions (cancel, retry, resummarize, retranslate) share one flow: the action is
 * accepted at once and runs asynchronously, so the tool reads the job right after (or waits up to
 * waitSeconds) and says how to follow it with get_meeting.
 */
import { isMeetingTerminal, type MeetingJob, type MeetingLanguage } from '@polymodal/core';
import { jobStatusShape, type WaitExtra, waitForJob } from '@polymodal/mcp-common';
import { z } from 'zod';
import { countsSchema, jobDetailsShape, summarySchema } from '../presenters/index.js';
import { jobOutcome, jobOutcomeText } from './job-result.js';
import { describeJob, type MeetingToolDeps, meetingToolError, recordStatus } from './meeting-tool-deps.js';

export type JobAction = 'cancel' | 'retry' | 'resummarize' | 'retranslate';

export const jobActionOutputSchema = {
  ...jobStatusShape,
  action: z.enum(['cancel', 'retry', 'resummarize', 'retranslate']),
  ...jobDetailsShape,
  counts: countsSchema.optional(),
  summary: summarySchema.optional(),
};

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
  try {
    const signalOptions = { signal: extra.signal };
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

    // The job was stopped before the action; on the real platform the restart is dispatched
    // asynchronously, so a first read may still show the old final state. While waiting, only a final
    // state seen after the job moved (or on a later poll) counts as the action's outcome.
    let polls = 0;
    let moved = false;
    const { job, done } = await waitForJob<MeetingJob>({
      extra,
      waitSeconds: options.waitSeconds,
      intervalMs: deps.pollIntervalMs,
      poll: async (signal) => {
        const current = await meeting.retrieve(jobId, { signal });
        polls += 1;
        if (!isMeetingTerminal(current.status)) moved = true;
        return current;
      },
      isDone: (current) =>
        isMeetingTerminal(current.status) &&
        (action === 'cancel' || options.waitSeconds === 0 || moved || polls > 1),
      describe: describeJob,
    });
    await recordStatus(deps, job);
    const stopped = isMeetingTerminal(job.status) && (done || options.waitSeconds === 0);
    const lead = `${capitalize(action)} accepted.`;
    return {
      content: [{ type: 'text' as const, text: jobOutcomeText(job, stopped, lead) }],
      structuredContent: { ...jobOutcome(job, stopped), action },
    };
  } catch (error) {
    return meetingToolError(error, deps, { jobId });
  }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
