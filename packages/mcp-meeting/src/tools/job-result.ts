/**
 * The result every waiting meeting tool returns: a job handle while the job runs, the outcome (summary,
 * counts, what to call next) once processing stopped.
 */
import type { MeetingJob } from '@polymodal/core';
import { keepWaitingHint } from '@polymodal/mcp-common';
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

/** Structured content shared by summarize_meeting and the action tools. */
export function jobOutcome(job: MeetingJob, done: boolean) {
  const base = {
    jobId: job.id,
    status: job.status,
    progress: job.progress,
    done,
    next: done ? nextAfterStop(job) : keepWaitingHint('get_meeting', job.id),
    ...jobDetails(job),
  };
  if (!done) return base;
  const summary = presentSummary(job);
  return {
    ...base,
    counts: countItems(job),
    ...(summary ? { summary } : {}),
  };
}

/** One-paragraph text mirror of `jobOutcome`. */
export function jobOutcomeText(job: MeetingJob, done: boolean, lead?: string): string {
  const title = job.title ? ` "${job.title}"` : '';
  const prefix = lead ? `${lead} ` : '';
  if (!done) {
    return (
      `${prefix}Meeting job ${job.id}${title} is still ${job.status} (${Math.round(job.progress)}%). ` +
      `It keeps running on the platform. Next: ${keepWaitingHint('get_meeting', job.id)}.`
    );
  }
  const lines = [`${prefix}Meeting job ${job.id}${title} ${job.status}.`];
  if (job.status === 'COMPLETED') {
    const counts = countItems(job);
    lines[0] +=
      ` ${counts.segments} transcript segments, ${counts.speakers} speakers, ${counts.decisions} decisions, ` +
      `${counts.actionItems} action items, ${counts.openQuestions} open questions.`;
  }
  if (job.errorMessage) lines.push(`Error: ${job.errorMessage}`);
  if (job.warning) lines.push(`Warning: ${job.warning}`);
  const summary = presentSummary(job);
  if (summary) lines.push(renderSummaryText(summary));
  lines.push(`Next: ${nextAfterStop(job)}.`);
  return lines.join('\n');
}
