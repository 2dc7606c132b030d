/**
 * How the waiting meeting tools present a job (through mcp-common's `respondWithJob`, which adds the
 * common fields): the job details while it runs, the outcome (summary, counts, what to call next) once
 * processing stopped.
 */
import type { MeetingJob } from '@polymodal/core';
import { keepWaitingHint, type PresentedJob } from '@polymodal/mcp-common';
import { countItems, jobDetails, presentSummary, renderSummaryText } from '../presenters/index.js';

/** Hint for a job whose processing stopped. */
export function nextAfterStop(job: MeetingJob): string {
  switch (job.status) {
    case 'COMPLETED':
      return (
        `call get_meeting with jobId=${job.id} and include=["transcript"] (or "translation") to read the ` +
        'transcript page by page, or export_meeting to save it as srt/vtt/md files'
      );
    case 'FAILED':
      return `call retry_meeting with jobId=${job.id} to process it again (failed jobs are not charged)`;
    case 'CANCELLED':
      return `call retry_meeting with jobId=${job.id} to restart it, or delete_meeting to remove it`;
    default:
      return keepWaitingHint('get_meeting', job.id);
  }
}

/** The presenter shared by summarize_meeting and the action tools. */
export function presentMeetingJob(job: MeetingJob, done: boolean): PresentedJob {
  const structured: Record<string, unknown> = { ...jobDetails(job) };
  if (done) {
    structured.counts = countItems(job);
    const summary = presentSummary(job);
    if (summary) structured.summary = summary;
  }
  return {
    text: jobOutcomeText(job, done),
    structured,
    next: done ? nextAfterStop(job) : keepWaitingHint('get_meeting', job.id),
  };
}

/** One-paragraph text of a meeting job, running or stopped. */
export function jobOutcomeText(job: MeetingJob, done: boolean): string {
  const title = job.title ? ` "${job.title}"` : '';
  if (!done) {
    return (
      `Meeting job ${job.id}${title} is still ${job.status} (${Math.round(job.progress)}%). ` +
      `It keeps running on the platform. Next: ${keepWaitingHint('get_meeting', job.id)}.`
    );
  }
  const lines = [`Meeting job ${job.id}${title} ${job.status}.`];
  if (job.status === 'COMPLETED') {
    const counts = countItems(job);
    lines[0] +=
      ` ${counts.segments} transcript segments, ${counts.speakers} speakers, ${counts.decisions} decisions, ` +
      `${counts.actionItems} action items, ${counts.openQuestions} open questions.`;
  } else {
    lines[0] += ' It was not charged (credits are charged only when a job completes).';
  }
  if (job.errorMessage) lines.push(`Error: ${job.errorMessage}`);
  if (job.warning) lines.push(`Warning: ${job.warning}`);
  const summary = presentSummary(job);
  if (summary) lines.push(renderSummaryText(summary));
  lines.push(`Next: ${nextAfterStop(job)}.`);
  return lines.join('\n');
}
