/**
 * File renderings of a job for export_meeting: transcripts as SRT, WebVTT or Markdown and the summary as
 * Markdown, always with the speaker names the user set.
 */

import type { MeetingJob, TranscriptSegment } from '@polymodal/core';
import { formatSrt, formatVtt, type SubtitleCue } from '@polymodal/mcp-common';
import { clock, itemText, presentSummary, speakerLabel } from './present-job.js';

export type ExportFormat = 'srt' | 'vtt' | 'md';

export const EXPORT_MIME_TYPES: Record<ExportFormat, string> = {
  srt: 'application/x-subrip',
  vtt: 'text/vtt',
  md: 'text/markdown',
};

export function transcriptCues(job: MeetingJob, segments: readonly TranscriptSegment[]): SubtitleCue[] {
  return segments.map((segment) => ({
    start: segment.start,
    end: segment.end,
    text: segment.text,
    speaker: speakerLabel(job, segment.speakerId) ?? undefined,
  }));
}

export function renderTranscript(
  job: MeetingJob,
  segments: readonly TranscriptSegment[],
  options: { format: ExportFormat; heading: string },
): string {
  if (options.format === 'srt') return formatSrt(transcriptCues(job, segments));
  if (options.format === 'vtt') return formatVtt(transcriptCues(job, segments));
  const lines = [`# ${options.heading}`, ''];
  for (const segment of segments) {
    const speaker = speakerLabel(job, segment.speakerId) ?? segment.speakerId;
    lines.push(`**${speaker}** \`${clock(segment.start)}–${clock(segment.end)}\` ${segment.text.trim()}`, '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

export function renderSummaryMarkdown(job: MeetingJob): string {
  const summary = presentSummary(job);
  const title = job.title?.trim() || `Meeting ${job.id}`;
  const lines = [`# ${title}`, ''];
  if (!summary) return `${lines.join('\n')}No summary yet (status ${job.status}).\n`;
  const startOf = new Map((job.transcript ?? []).map((segment) => [segment.id, segment.start]));
  const refs = (ids: readonly string[]) => {
    if (ids.length === 0) return '';
    const parts = ids.map((id) => {
      const start = startOf.get(id);
      return start === undefined ? id : `${id} @ ${clock(start)}`;
    });
    return ` _(${parts.join('; ')})_`;
  };
  const section = (heading: string, items: string[]) => {
    lines.push(`## ${heading}`, '');
    if (items.length === 0) lines.push('_None._');
    else lines.push(...items);
    lines.push('');
  };
  section('Overview', summary.overview ? [summary.overview] : []);
  section(
    'Topics',
    summary.topics.map((item) => `- ${itemText(item)}${refs(item.segmentIds)}`),
  );
  section(
    'Decisions',
    summary.decisions.map((item) => `- ${itemText(item)}${refs(item.segmentIds)}`),
  );
  section(
    'Action items',
    summary.actionItems.map((item) => {
      const details = [item.owner ? `owner: ${item.owner}` : '', item.dueDate ? `due: ${item.dueDate}` : '']
        .filter(Boolean)
        .join(', ');
      return `- [ ] ${item.text}${details ? ` — ${details}` : ''}${refs(item.segmentIds)}`;
    }),
  );
  section(
    'Open questions',
    summary.openQuestions.map((item) => `- ${itemText(item)}${refs(item.segmentIds)}`),
  );
  return `${lines.join('\n').trimEnd()}\n`;
}
