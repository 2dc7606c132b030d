/**
 * The platform's job actions (cancel, retry, resummarize, retranslate) share one flow: the action is
 * accepted at once and runs asynchronously, so the tool reads the job after it (no sooner than the spec's
 * 5 s after the last read) or waits up to waitSeconds, and says how to follow it with get_meeting.
 *
 * A retry is paid work (the platform charges a job once, on successful completion, and a FAILED or
 * CANCELLED job was not charged), so it passes the daily credit budget first, like a new submission: the
 * cost is what the ledger knows of the job (the platform's price, or the estimate made at submission), or,
 * for a job this server did not start, the platform's `credits` for it, or the most a recording can cost.
 * Resummarize and retranslate act on a job already charged once and are not counted again.
 */
import type { MeetingJob, MeetingLanguage } from '@polymodal/core';
import { isMeetingTerminal, MEETING_SERVICE } from '@polymodal/core/constants';
import type { ToolDeps } from '@polymodal/mcp-common';
import {
  type CreditEstimate,
  createToolDeadline,
  estimateMeetingCredits,
  jobOutputSchema,
  type PresentedJob,
  respondWithJob,
  restartCredits,
  type WaitExtra,
} from '@polymodal/mcp-common';
import { presentMeetingJob } from './job-result.js';
import { meetingJobView, meetingToolError, readJob } from './meeting-tool-deps.js';

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
  deps: ToolDeps,
  options: {
    action: JobAction;
    jobId: string;
    targetLanguage?: MeetingLanguage;
    waitSeconds: number;
    extra: WaitExtra;
  },
) {
  const { action, jobId, extra } = options;
  const meeting = deps.platform.client.meeting;
  const deadline = createToolDeadline(extra.signal, deps.toolDeadlineSeconds);
  try {
    const signalOptions = { signal: extra.signal, deadline: deadline.at };
    if (action === 'cancel') await meeting.cancel(jobId, signalOptions);
    else if (action === 'retry') {
      const estimate = await retryEstimate(deps, jobId, extra.signal);
      const admitted = estimate
        ? await deps.platform.budget.admitRestart({
            service: MEETING_SERVICE,
            jobId,
            estimate,
            what: 'retrying this job',
          })
        : undefined;
      try {
        await meeting.retry(jobId, signalOptions);
      } catch (error) {
        await admitted?.undo();
        throw error;
      }
    } else if (action === 'resummarize') await meeting.resummarize(jobId, signalOptions);
    else
      await meeting.retranslate(
        jobId,
        { targetLanguage: options.targetLanguage as MeetingLanguage },
        signalOptions,
      );
    deps.platform.log.info(`${action} accepted for meeting job ${jobId}`);

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

/**
 * What a retry would cost. The job is read only when a budget applies and the ledger knows nothing of its
 * price; without a budget and without a known price there is nothing to check or to reserve (undefined).
 */
async function retryEstimate(
  deps: ToolDeps,
  jobId: string,
  signal: AbortSignal,
): Promise<CreditEstimate | undefined> {
  const known = restartCredits(await deps.platform.ledger.findById(MEETING_SERVICE, jobId));
  if (known) return known;
  if (deps.platform.budget.limit() === undefined) return undefined;
  const job = await readJob(deps, jobId, signal);
  if (typeof job.credits === 'number' && job.credits > 0) {
    return { credits: job.credits, basis: "the platform's price for this recording" };
  }
  return estimateMeetingCredits(undefined);
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
